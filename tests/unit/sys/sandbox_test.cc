// sys::EnterSandbox: the state rocm-smi-lib's child is in before it loads the library,
// read back from the kernel in a forked child (the sandbox is for good). A private /dev/shm or no
// library: under a seccomp filter that refuses unshare(2) with EPERM, as systemd's
// RestrictNamespaces= does, the probe answers why and never loads the library.
#include "sys/sandbox.h"

#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <functional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sys/rocm_smi.h"

namespace rocmtune::sys {
namespace {

// Runs `fn` in a forked child and returns what it answered.
std::string InChild(const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string text = fn();
    ssize_t unused = ::write(fds[1], text.data(), text.size());
    (void)unused;
    _exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

std::string Describe(const Result<SandboxState>& state) {
  if (!state) return "error: " + state.error().message;
  struct stat shm {};
  ::stat("/dev/shm", &shm);
  return fmt::format(
      "uid {}/{}/{} gid {}/{}/{} groups {} caps {:x}/{:x}/{:x}/{:x}/{:x} nnp {} private {} shm {} {} {:o}", state->ruid,
      state->euid, state->suid, state->rgid, state->egid, state->sgid, state->supplementary_groups, state->effective,
      state->permitted, state->inheritable, state->ambient, state->bounding, state->no_new_privs, state->private_shm,
      shm.st_dev, shm.st_uid, shm.st_mode & 07777);
}

dev_t ShmDevice() {
  struct stat st {};
  return ::stat("/dev/shm", &st) == 0 ? st.st_dev : 0;
}

// unshare(2) fails with EPERM from here on, as under a unit with RestrictNamespaces=yes.
bool RefuseUnshare() {
#if defined(__x86_64__)
  constexpr uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
  return false;
#endif
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

TEST(SandboxTest, RootDropsToNobodyWithNoCapabilitiesAndAShmOfItsOwn) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (the path rocmtunectl and rocmtuned take as root)";
  const dev_t host_shm = ShmDevice();
  std::string got = InChild([] { return Describe(EnterSandbox()); });
  // A fresh tmpfs (another device) owned by nobody, mode 0700; nothing of the parent's /dev/shm.
  std::string want_tail = fmt::format("shm {} 65534 700", host_shm);
  EXPECT_EQ(got.substr(0, got.find(" shm ")),
            "uid 65534/65534/65534 gid 65534/65534/65534 groups 0 caps 0/0/0/0/0 nnp true private true")
      << got;
  EXPECT_NE(got.find(" 65534 700"), std::string::npos) << got;
  EXPECT_EQ(got.find(want_tail), std::string::npos) << "the child saw the parent's /dev/shm: " << got;
  EXPECT_EQ(ShmDevice(), host_shm) << "the mount leaked out of the child's namespace";
}

// Root's child runs as an account of its own (sysusers.d: rocmtune-smi), not the "nobody" other
// services share; without the account, nobody. A passwd with the account is bind-mounted over
// /etc/passwd in the child's own mount namespace (NSS reads it there).
TEST(SandboxTest, RootDropsToTheProbeAccountWhenItExists) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (the path rocmtunectl takes as root)";
  std::string got = InChild([] {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      return std::string("skip: no mount namespace");
    char path[] = "/tmp/rocmtune-passwd-XXXXXX";
    int fd = ::mkstemp(path);
    if (fd < 0) return std::string("mkstemp failed");
    ::close(fd);
    std::ofstream(path) << "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534::/:/usr/sbin/nologin\n"
                        << sys::kProbeUser << ":x:64999:64998::/:/usr/sbin/nologin\n";
    if (::mount(path, "/etc/passwd", nullptr, MS_BIND, nullptr) != 0) return std::string("skip: bind mount");
    SandboxOptions options = ProbeSandboxOptions(false);
    std::string out = fmt::format("options {}/{}", options.uid, options.gid);
    auto state = EnterSandbox(options);
    ::unlink(path);
    if (!state) return out + " error: " + state.error().message;
    return fmt::format("{} uid {} gid {}", out, state->euid, state->egid);
  });
  if (got.starts_with("skip: ")) GTEST_SKIP() << got;
  EXPECT_EQ(got, "options 64999/64998 uid 64999 gid 64998");
}

TEST(SandboxTest, NotRootKeepsItsUidInAUserNamespace) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become uid 4711 first";
  std::string got = InChild([] {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(4711, 4711, 4711) != 0 || ::setresuid(4711, 4711, 4711) != 0)
      return std::string("setresuid failed");
    return Describe(EnterSandbox());
  });
  if (got == "error: no private /dev/shm for rocm-smi-lib: unshare: Operation not permitted" ||
      got == "error: no private /dev/shm for rocm-smi-lib: unshare: Invalid argument")
    GTEST_SKIP() << "user namespaces are not allowed here: " << got;
  EXPECT_EQ(got.substr(0, got.find(" shm ")),
            "uid 4711/4711/4711 gid 4711/4711/4711 groups 0 caps 0/0/0/0/0 nnp true private true")
      << got;
  EXPECT_NE(got.find(" 4711 700"), std::string::npos) << got;
}

TEST(SandboxTest, WithoutUnshareThereIsNoSandboxAndNoLibrary) {
  std::string got = InChild([] {
    if (!RefuseUnshare()) return std::string("no seccomp");
    // The library's path does not matter: it must not be looked at.
    SmiProbe probe = ProbeRocmSmi(
        {.libraries = {{SmiKind::kRocmSmi, "/nonexistent/librocm_smi64.so.1"}}, .timeout = std::chrono::seconds(5)});
    return probe.error;
  });
  if (got == "no seccomp") GTEST_SKIP() << "cannot install a seccomp filter here";
  EXPECT_EQ(got, "no private /dev/shm for rocm-smi-lib: unshare: Operation not permitted");
}

TEST(SandboxTest, UnderTheUnitItsOwnShmIsUsedAndPrivilegesStillGo) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  std::string got = InChild([] {
    if (!RefuseUnshare()) return std::string("no seccomp");
    return Describe(EnterSandbox({.shm_is_private = true}));
  });
  if (got == "no seccomp") GTEST_SKIP() << "cannot install a seccomp filter here";
  EXPECT_EQ(got.substr(0, got.find(" shm ")),
            "uid 65534/65534/65534 gid 65534/65534/65534 groups 0 caps 0/0/0/0/0 nnp true private false")
      << got;
}

// rocmtuned as its own system user under the unit: no user namespace either, nothing to drop but
// the ambient set and no_new_privs (no capset or setresuid, which the unit's filter refuses). Its
// bounding set stays when it had one (the unit's CapabilityBoundingSet= empties it): without
// CAP_SETPCAP it cannot be dropped, and no_new_privs makes it useless.
TEST(SandboxTest, UnderTheUnitAServiceUserKeepsItsUid) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become uid 4711 first";
  std::string got = InChild([] {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(4711, 4711, 4711) != 0 || ::setresuid(4711, 4711, 4711) != 0)
      return std::string("setresuid failed");
    if (!RefuseUnshare()) return std::string("no seccomp");
    return Describe(EnterSandbox({.shm_is_private = true}));
  });
  if (got == "no seccomp") GTEST_SKIP() << "cannot install a seccomp filter here";
  EXPECT_TRUE(got.starts_with("uid 4711/4711/4711 gid 4711/4711/4711 groups 0 caps 0/0/0/0/")) << got;
  EXPECT_NE(got.find(" nnp true private false shm "), std::string::npos) << got;
}

}  // namespace
}  // namespace rocmtune::sys
