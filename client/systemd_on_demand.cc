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

// A function that returns a status: the library's answer, or -ELIBACC without the library.
// `params` and `args` are its parameter list and the same names as arguments, in parentheses.
#define ROCMTUNE_SD_STATUS(name, params, args) \
  int name params {                            \
    ROCMTUNE_SD(name);                         \
    return fn ? fn args : -ELIBACC;            \
  }

// sd_bus_message_append and _read: `types` and what follows go to the library's va_list form
// (name##v), or -ELIBACC without the library.
#define ROCMTUNE_SD_MESSAGE_VARIADIC(name)                        \
  int name(sd_bus_message* m, const char* types, ...) {           \
    static auto* const fn = Find<decltype(::name##v)>(#name "v"); \
    if (!fn) return -ELIBACC;                                     \
    va_list ap;                                                   \
    va_start(ap, types);                                          \
    int r = fn(m, types, ap);                                     \
    va_end(ap);                                                   \
    return r;                                                     \
  }

// The parameter lists below are macro arguments, which clang-format would space as products.
// clang-format off
extern "C" {

ROCMTUNE_SD_STATUS(sd_bus_open_system, (sd_bus** ret), (ret))
ROCMTUNE_SD_STATUS(sd_bus_is_open, (sd_bus* bus), (bus))
ROCMTUNE_SD_STATUS(sd_bus_set_method_call_timeout, (sd_bus* bus, uint64_t usec), (bus, usec))

sd_bus* sd_bus_flush_close_unref(sd_bus* bus) {
  if (!bus) return nullptr;
  ROCMTUNE_SD(sd_bus_flush_close_unref);
  return fn ? fn(bus) : nullptr;
}

ROCMTUNE_SD_STATUS(sd_bus_call,
                   (sd_bus* bus, sd_bus_message* m, uint64_t usec, sd_bus_error* ret_error, sd_bus_message** reply),
                   (bus, m, usec, ret_error, reply))

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

ROCMTUNE_SD_STATUS(sd_bus_message_new_method_call,
                   (sd_bus* bus, sd_bus_message** m, const char* destination, const char* path, const char* interface,
                    const char* member),
                   (bus, m, destination, path, interface, member))

sd_bus_message* sd_bus_message_unref(sd_bus_message* m) {
  if (!m) return nullptr;
  ROCMTUNE_SD(sd_bus_message_unref);
  return fn ? fn(m) : nullptr;
}

ROCMTUNE_SD_MESSAGE_VARIADIC(sd_bus_message_append)
ROCMTUNE_SD_MESSAGE_VARIADIC(sd_bus_message_read)

ROCMTUNE_SD_STATUS(sd_bus_message_append_strv, (sd_bus_message* m, char** l), (m, l))
ROCMTUNE_SD_STATUS(sd_bus_message_read_strv, (sd_bus_message* m, char*** l), (m, l))
ROCMTUNE_SD_STATUS(sd_bus_message_open_container, (sd_bus_message* m, char type, const char* contents),
                   (m, type, contents))
ROCMTUNE_SD_STATUS(sd_bus_message_close_container, (sd_bus_message* m), (m))
ROCMTUNE_SD_STATUS(sd_bus_message_enter_container, (sd_bus_message* m, char type, const char* contents),
                   (m, type, contents))
ROCMTUNE_SD_STATUS(sd_bus_message_exit_container, (sd_bus_message* m), (m))
ROCMTUNE_SD_STATUS(sd_bus_message_peek_type, (sd_bus_message* m, char* type, const char** contents),
                   (m, type, contents))
ROCMTUNE_SD_STATUS(sd_bus_message_skip, (sd_bus_message* m, const char* types), (m, types))
ROCMTUNE_SD_STATUS(sd_bus_message_set_allow_interactive_authorization, (sd_bus_message* m, int b), (m, b))
ROCMTUNE_SD_STATUS(sd_bus_message_set_auto_start, (sd_bus_message* m, int b), (m, b))
ROCMTUNE_SD_STATUS(sd_journal_open, (sd_journal** ret, int flags), (ret, flags))
ROCMTUNE_SD_STATUS(sd_journal_open_files_fd, (sd_journal** ret, int fds[], unsigned n_fds, int flags),
                   (ret, fds, n_fds, flags))

void sd_journal_close(sd_journal* j) {
  if (!j) return;
  ROCMTUNE_SD(sd_journal_close);
  if (fn) fn(j);
}

ROCMTUNE_SD_STATUS(sd_journal_add_match, (sd_journal* j, const void* data, size_t size), (j, data, size))

void sd_journal_flush_matches(sd_journal* j) {
  ROCMTUNE_SD(sd_journal_flush_matches);
  if (fn) fn(j);
}

ROCMTUNE_SD_STATUS(sd_journal_next, (sd_journal* j), (j))
ROCMTUNE_SD_STATUS(sd_journal_previous, (sd_journal* j), (j))
ROCMTUNE_SD_STATUS(sd_journal_seek_head, (sd_journal* j), (j))
ROCMTUNE_SD_STATUS(sd_journal_seek_tail, (sd_journal* j), (j))
ROCMTUNE_SD_STATUS(sd_journal_seek_cursor, (sd_journal* j, const char* cursor), (j, cursor))
ROCMTUNE_SD_STATUS(sd_journal_seek_realtime_usec, (sd_journal* j, uint64_t usec), (j, usec))
ROCMTUNE_SD_STATUS(sd_journal_test_cursor, (sd_journal* j, const char* cursor), (j, cursor))
ROCMTUNE_SD_STATUS(sd_journal_get_cursor, (sd_journal* j, char** cursor), (j, cursor))
ROCMTUNE_SD_STATUS(sd_journal_get_data, (sd_journal* j, const char* field, const void** data, size_t* l),
                   (j, field, data, l))
ROCMTUNE_SD_STATUS(sd_journal_get_realtime_usec, (sd_journal* j, uint64_t* ret), (j, ret))
ROCMTUNE_SD_STATUS(sd_journal_set_data_threshold, (sd_journal* j, size_t sz), (j, sz))
ROCMTUNE_SD_STATUS(sd_journal_query_unique, (sd_journal* j, const char* field), (j, field))
ROCMTUNE_SD_STATUS(sd_journal_enumerate_unique, (sd_journal* j, const void** data, size_t* l), (j, data, l))
ROCMTUNE_SD_STATUS(sd_journal_sendv_with_location,
                   (const char* file, const char* line, const char* func, const struct iovec* iov, int n),
                   (file, line, func, iov, n))

}  // extern "C"
// clang-format on
