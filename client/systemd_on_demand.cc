// rocmtunectl's libsystemd, loaded when a verb first talks to the bus or reads the journal rather
// than at every start. libsystemd.so.0 and the six libraries it needs (libgcrypt, liblzma, libzstd,
// liblz4, libcap, libgpg-error) were a fifth of `rocmtunectl check-compute`'s instructions with
// --root or as root, which never use it (BENCHMARKS.md, "Before Python starts").
//
// This file defines, in the executable, every sd_* function rocmtunectl calls; each loads
// libsystemd.so.0 (RTLD_LOCAL) on first use and calls the library's own. The linker then resolves
// every sd_* reference of the core and bus libraries here, and with --as-needed (Debian's default,
// and client/CMakeLists.txt asks for it) drops libsystemd from rocmtunectl's DT_NEEDED. Ctest
// `client.needed_libraries` fails if a call to a function missing here brings libsystemd back
// (add the function here). The variadic ones call the library's va_list forms.
//
// When libsystemd.so.0 cannot be loaded, functions that return a status return -ELIBACC (the bus
// and journal callers say what failed with strerror), those that return a handle return NULL, and
// the frees do what they do for what this process could have made without the library: nothing.
#include <dlfcn.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-journal.h>

#include <cerrno>
#include <cstdarg>

namespace {

void* Library() {
  static void* const library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
  return library;
}

template <typename Fn>
Fn* Find(const char* name) {
  void* library = Library();
  return library ? reinterpret_cast<Fn*>(dlsym(library, name)) : nullptr;
}

}  // namespace

// The library's function of the same name, found once (thread-safe: a function-local static).
#define ROCMTUNE_SD(name) static auto* const fn = Find<decltype(::name)>(#name)

extern "C" {

int sd_bus_open_system(sd_bus** ret) {
  ROCMTUNE_SD(sd_bus_open_system);
  return fn ? fn(ret) : -ELIBACC;
}

int sd_bus_is_open(sd_bus* bus) {
  ROCMTUNE_SD(sd_bus_is_open);
  return fn ? fn(bus) : -ELIBACC;
}

int sd_bus_set_method_call_timeout(sd_bus* bus, uint64_t usec) {
  ROCMTUNE_SD(sd_bus_set_method_call_timeout);
  return fn ? fn(bus, usec) : -ELIBACC;
}

sd_bus* sd_bus_flush_close_unref(sd_bus* bus) {
  if (!bus) return nullptr;
  ROCMTUNE_SD(sd_bus_flush_close_unref);
  return fn ? fn(bus) : nullptr;
}

int sd_bus_call(sd_bus* bus, sd_bus_message* m, uint64_t usec, sd_bus_error* ret_error, sd_bus_message** reply) {
  ROCMTUNE_SD(sd_bus_call);
  return fn ? fn(bus, m, usec, ret_error, reply) : -ELIBACC;
}

int sd_bus_call_method(sd_bus* bus, const char* destination, const char* path, const char* interface,
                       const char* member, sd_bus_error* ret_error, sd_bus_message** reply, const char* types, ...) {
  static auto* const fn = Find<decltype(::sd_bus_call_methodv)>("sd_bus_call_methodv");
  if (!fn) return -ELIBACC;
  va_list ap;
  va_start(ap, types);
  int r = fn(bus, destination, path, interface, member, ret_error, reply, types, ap);
  va_end(ap);
  return r;
}

// What libsystemd does for an error it did not allocate (a constant one, or none), without loading
// it: the destructor of every sd_bus_error calls this, whether or not the bus was used.
void sd_bus_error_free(sd_bus_error* e) {
  if (!e) return;
  if (e->_need_free > 0) {
    ROCMTUNE_SD(sd_bus_error_free);
    if (fn) fn(e);
  }
  *e = sd_bus_error{};  // SD_BUS_ERROR_NULL, without its C compound literal
}

int sd_bus_message_new_method_call(sd_bus* bus, sd_bus_message** m, const char* destination, const char* path,
                                   const char* interface, const char* member) {
  ROCMTUNE_SD(sd_bus_message_new_method_call);
  return fn ? fn(bus, m, destination, path, interface, member) : -ELIBACC;
}

sd_bus_message* sd_bus_message_unref(sd_bus_message* m) {
  if (!m) return nullptr;
  ROCMTUNE_SD(sd_bus_message_unref);
  return fn ? fn(m) : nullptr;
}

int sd_bus_message_append(sd_bus_message* m, const char* types, ...) {
  static auto* const fn = Find<decltype(::sd_bus_message_appendv)>("sd_bus_message_appendv");
  if (!fn) return -ELIBACC;
  va_list ap;
  va_start(ap, types);
  int r = fn(m, types, ap);
  va_end(ap);
  return r;
}

int sd_bus_message_read(sd_bus_message* m, const char* types, ...) {
  static auto* const fn = Find<decltype(::sd_bus_message_readv)>("sd_bus_message_readv");
  if (!fn) return -ELIBACC;
  va_list ap;
  va_start(ap, types);
  int r = fn(m, types, ap);
  va_end(ap);
  return r;
}

int sd_bus_message_append_strv(sd_bus_message* m, char** l) {
  ROCMTUNE_SD(sd_bus_message_append_strv);
  return fn ? fn(m, l) : -ELIBACC;
}

int sd_bus_message_read_strv(sd_bus_message* m, char*** l) {
  ROCMTUNE_SD(sd_bus_message_read_strv);
  return fn ? fn(m, l) : -ELIBACC;
}

int sd_bus_message_open_container(sd_bus_message* m, char type, const char* contents) {
  ROCMTUNE_SD(sd_bus_message_open_container);
  return fn ? fn(m, type, contents) : -ELIBACC;
}

int sd_bus_message_close_container(sd_bus_message* m) {
  ROCMTUNE_SD(sd_bus_message_close_container);
  return fn ? fn(m) : -ELIBACC;
}

int sd_bus_message_enter_container(sd_bus_message* m, char type, const char* contents) {
  ROCMTUNE_SD(sd_bus_message_enter_container);
  return fn ? fn(m, type, contents) : -ELIBACC;
}

int sd_bus_message_exit_container(sd_bus_message* m) {
  ROCMTUNE_SD(sd_bus_message_exit_container);
  return fn ? fn(m) : -ELIBACC;
}

int sd_bus_message_peek_type(sd_bus_message* m, char* type, const char** contents) {
  ROCMTUNE_SD(sd_bus_message_peek_type);
  return fn ? fn(m, type, contents) : -ELIBACC;
}

int sd_bus_message_skip(sd_bus_message* m, const char* types) {
  ROCMTUNE_SD(sd_bus_message_skip);
  return fn ? fn(m, types) : -ELIBACC;
}

int sd_bus_message_set_allow_interactive_authorization(sd_bus_message* m, int b) {
  ROCMTUNE_SD(sd_bus_message_set_allow_interactive_authorization);
  return fn ? fn(m, b) : -ELIBACC;
}

int sd_bus_message_set_auto_start(sd_bus_message* m, int b) {
  ROCMTUNE_SD(sd_bus_message_set_auto_start);
  return fn ? fn(m, b) : -ELIBACC;
}

int sd_journal_open(sd_journal** ret, int flags) {
  ROCMTUNE_SD(sd_journal_open);
  return fn ? fn(ret, flags) : -ELIBACC;
}

int sd_journal_open_files_fd(sd_journal** ret, int fds[], unsigned n_fds, int flags) {
  ROCMTUNE_SD(sd_journal_open_files_fd);
  return fn ? fn(ret, fds, n_fds, flags) : -ELIBACC;
}

void sd_journal_close(sd_journal* j) {
  if (!j) return;
  ROCMTUNE_SD(sd_journal_close);
  if (fn) fn(j);
}

int sd_journal_add_match(sd_journal* j, const void* data, size_t size) {
  ROCMTUNE_SD(sd_journal_add_match);
  return fn ? fn(j, data, size) : -ELIBACC;
}

void sd_journal_flush_matches(sd_journal* j) {
  ROCMTUNE_SD(sd_journal_flush_matches);
  if (fn) fn(j);
}

int sd_journal_next(sd_journal* j) {
  ROCMTUNE_SD(sd_journal_next);
  return fn ? fn(j) : -ELIBACC;
}

int sd_journal_previous(sd_journal* j) {
  ROCMTUNE_SD(sd_journal_previous);
  return fn ? fn(j) : -ELIBACC;
}

int sd_journal_seek_head(sd_journal* j) {
  ROCMTUNE_SD(sd_journal_seek_head);
  return fn ? fn(j) : -ELIBACC;
}

int sd_journal_seek_tail(sd_journal* j) {
  ROCMTUNE_SD(sd_journal_seek_tail);
  return fn ? fn(j) : -ELIBACC;
}

int sd_journal_seek_cursor(sd_journal* j, const char* cursor) {
  ROCMTUNE_SD(sd_journal_seek_cursor);
  return fn ? fn(j, cursor) : -ELIBACC;
}

int sd_journal_seek_realtime_usec(sd_journal* j, uint64_t usec) {
  ROCMTUNE_SD(sd_journal_seek_realtime_usec);
  return fn ? fn(j, usec) : -ELIBACC;
}

int sd_journal_test_cursor(sd_journal* j, const char* cursor) {
  ROCMTUNE_SD(sd_journal_test_cursor);
  return fn ? fn(j, cursor) : -ELIBACC;
}

int sd_journal_get_cursor(sd_journal* j, char** cursor) {
  ROCMTUNE_SD(sd_journal_get_cursor);
  return fn ? fn(j, cursor) : -ELIBACC;
}

int sd_journal_get_data(sd_journal* j, const char* field, const void** data, size_t* l) {
  ROCMTUNE_SD(sd_journal_get_data);
  return fn ? fn(j, field, data, l) : -ELIBACC;
}

int sd_journal_get_realtime_usec(sd_journal* j, uint64_t* ret) {
  ROCMTUNE_SD(sd_journal_get_realtime_usec);
  return fn ? fn(j, ret) : -ELIBACC;
}

int sd_journal_set_data_threshold(sd_journal* j, size_t sz) {
  ROCMTUNE_SD(sd_journal_set_data_threshold);
  return fn ? fn(j, sz) : -ELIBACC;
}

int sd_journal_query_unique(sd_journal* j, const char* field) {
  ROCMTUNE_SD(sd_journal_query_unique);
  return fn ? fn(j, field) : -ELIBACC;
}

int sd_journal_enumerate_unique(sd_journal* j, const void** data, size_t* l) {
  ROCMTUNE_SD(sd_journal_enumerate_unique);
  return fn ? fn(j, data, l) : -ELIBACC;
}

int sd_journal_sendv_with_location(const char* file, const char* line, const char* func, const struct iovec* iov,
                                   int n) {
  ROCMTUNE_SD(sd_journal_sendv_with_location);
  return fn ? fn(file, line, func, iov, n) : -ELIBACC;
}

}  // extern "C"
