// librsmi_spy.so, LD_PRELOAD'ed into rocmtunectl and rocmtuned by rocm_smi_shm_attack_test.sh.
// It wraps mmap(2): the first time a process maps a file of /dev/shm (rocm-smi-lib's per-card
// mutex, mapped in rocm-smi-lib's child), it writes RSMI_SPY_DIR/map.PID ("pid", the path, the
// file's st_dev and st_ino as this process sees them), then RSMI_SPY_DIR/held.PID, sleeps
// RSMI_SPY_HOLD_MS so that the test reads /proc/PID/{status,maps} from outside while the process
// has the mapping, and writes RSMI_SPY_DIR/released.PID. The library's behaviour is unchanged.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

using MmapFn = void* (*)(void*, size_t, int, int, int, off_t);

void Touch(const char* dir, const char* what, pid_t pid, const char* text) {
  char path[4096];
  std::snprintf(path, sizeof path, "%s/%s.%d", dir, what, static_cast<int>(pid));
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t unused = ::write(fd, text, std::strlen(text));
  (void)unused;
  ::close(fd);
}

void Spy(int fd) {
  static pid_t seen = 0;  // once per process (a forked child is a new pid)
  const char* dir = std::getenv("RSMI_SPY_DIR");
  if (!dir || seen == ::getpid()) return;
  char link[64], target[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return;
  target[n] = '\0';
  if (std::strncmp(target, "/dev/shm/", 9) != 0) return;
  seen = ::getpid();
  struct stat st {};
  if (::fstat(fd, &st) != 0) return;
  char text[4300];
  std::snprintf(text, sizeof text, "pid %d\npath %s\ndev %ju\nino %ju\n", static_cast<int>(seen), target,
                static_cast<uintmax_t>(st.st_dev), static_cast<uintmax_t>(st.st_ino));
  Touch(dir, "map", seen, text);
  Touch(dir, "held", seen, "");
  const char* hold = std::getenv("RSMI_SPY_HOLD_MS");
  long ms = hold ? std::strtol(hold, nullptr, 10) : 0;
  timespec ts{ms / 1000, (ms % 1000) * 1000000};
  while (ms > 0 && ::nanosleep(&ts, &ts) != 0) {}
  Touch(dir, "released", seen, "");
}

void* Real(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  static auto real = reinterpret_cast<MmapFn>(::dlsym(RTLD_NEXT, "mmap"));
  return real(addr, len, prot, flags, fd, off);
}

}  // namespace

extern "C" void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) noexcept {
  void* p = Real(addr, len, prot, flags, fd, off);
  if (fd >= 0 && p != MAP_FAILED) Spy(fd);
  return p;
}

extern "C" void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) noexcept {
  return mmap(addr, len, prot, flags, fd, off);
}
