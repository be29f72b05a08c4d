// EnterSandbox: a private /dev/shm, then every privilege dropped, then read back from the kernel.
// The order matters: the tmpfs is mounted while the mount is still allowed, the bounding set is
// emptied while CAP_SETPCAP is still held (prctl(2) PR_CAPBSET_DROP), and the uid changes last,
// which clears the permitted and effective sets (capabilities(7), "Effect of user ID changes").
// Each step is skipped when its state already holds, so the child also works under a unit that
// already took the privilege away and filters the system call (capset, setgroups: @privileged).
#include "sys/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sys/unique_fd.h"

namespace rocmtune::sys {
namespace {

constexpr int kMaxCap = 63;  // capability numbers are bits of a 64-bit mask (linux/capability.h)
constexpr const char* kNoShm = "no private /dev/shm for rocm-smi-lib";
constexpr const char* kNoDrop = "cannot drop privileges for rocm-smi-lib";

tl::unexpected<Error> Errno(const char* prefix, const std::string& what) {
  int e = errno;
  return Fail(ErrorCode::kIo, fmt::format("{}: {}: {}", prefix, what, std::strerror(e)), e);
}

struct CapSets {
  uint64_t effective = 0, permitted = 0, inheritable = 0;
};

Result<CapSets> CapGet() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) return Errno(kNoDrop, "capget");
  auto join = [&](auto field) { return uint64_t{data[0].*field} | (uint64_t{data[1].*field} << 32); };
  return CapSets{join(&__user_cap_data_struct::effective), join(&__user_cap_data_struct::permitted),
                 join(&__user_cap_data_struct::inheritable)};
}

// Capabilities the kernel knows: PR_CAPBSET_READ answers EINVAL past the last one.
bool KnownCap(int cap) { return ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; }

Result<void> WriteProcFile(const char* path, const std::string& text) {
  UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return Errno(kNoShm, fmt::format("open {}", path));
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return Errno(kNoShm, fmt::format("write {}", path));
  return {};
}

// A new mount namespace (and, for a caller that is not root, a user namespace mapping only its own
// ids, user_namespaces(7)) with a fresh tmpfs on /dev/shm owned by the uid the child runs as.
// Mounts stay in the namespace: "/" is made private first, so nothing propagates back.
Result<void> MountPrivateShm(bool as_root, uid_t uid, gid_t gid) {
  if (::unshare(as_root ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) != 0) return Errno(kNoShm, "unshare");
  if (!as_root) {
    // A process that changed its uid is not dumpable, and then /proc/self/uid_map is root's and
    // cannot be written (proc(5)); the end of EnterSandbox makes it not dumpable again.
    if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) return Errno(kNoShm, "dumpable");
    if (auto w = WriteProcFile("/proc/self/setgroups", "deny"); !w) return w;
    if (auto w = WriteProcFile("/proc/self/uid_map", fmt::format("{0} {0} 1\n", uid)); !w) return w;
    if (auto w = WriteProcFile("/proc/self/gid_map", fmt::format("{0} {0} 1\n", gid)); !w) return w;
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return Errno(kNoShm, "make / private");
  // rocm-smi-lib keeps one 40-byte pthread_mutex_t per card there: a few pages are plenty.
  std::string data = fmt::format("size=1m,nr_inodes=256,mode=0700,uid={},gid={}", uid, gid);
  if (::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, data.c_str()) != 0)
    return Errno(kNoShm, "mount tmpfs on /dev/shm");
  return {};
}

Result<void> EmptyBoundingSet() {
  for (int cap = 0; cap <= kMaxCap && KnownCap(cap); ++cap)
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 && ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
      return Errno(kNoDrop, fmt::format("drop capability {} from the bounding set", cap));
  return {};
}

Result<void> ClearCapabilities() {
  // EINVAL: a kernel before 4.3 has no ambient set.
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return Errno(kNoDrop, "clear the ambient capabilities");
  auto caps = CapGet();
  if (!caps) return tl::unexpected(caps.error());
  if (caps->effective == 0 && caps->permitted == 0 && caps->inheritable == 0) return {};
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capset, &header, data) != 0) return Errno(kNoDrop, "capset");
  return {};
}

Result<void> ChangeIds(uid_t uid, gid_t gid, bool drop_groups) {
  uid_t ruid = 0, euid = 0, suid = 0;
  gid_t rgid = 0, egid = 0, sgid = 0;
  if (::getresuid(&ruid, &euid, &suid) != 0 || ::getresgid(&rgid, &egid, &sgid) != 0)
    return Errno(kNoDrop, "getresuid");
  if (drop_groups && ::getgroups(0, nullptr) != 0 && ::setgroups(0, nullptr) != 0) return Errno(kNoDrop, "setgroups");
  if ((rgid != gid || egid != gid || sgid != gid) && ::setresgid(gid, gid, gid) != 0)
    return Errno(kNoDrop, fmt::format("setresgid({})", gid));
  if ((ruid != uid || euid != uid || suid != uid) && ::setresuid(uid, uid, uid) != 0)
    return Errno(kNoDrop, fmt::format("setresuid({})", uid));
  return {};
}

Result<SandboxState> Verify(SandboxState state, bool as_root, bool bounding_dropped) {
  auto wrong = [](std::string what) { return Fail(ErrorCode::kIo, fmt::format("{}: {}", kNoDrop, what)); };
  if (state.euid == 0 || state.ruid != state.euid || state.suid != state.euid)
    return wrong(fmt::format("uids are {}/{}/{}", state.ruid, state.euid, state.suid));
  if (state.egid == 0 || state.rgid != state.egid || state.sgid != state.egid)
    return wrong(fmt::format("gids are {}/{}/{}", state.rgid, state.egid, state.sgid));
  if (as_root && state.supplementary_groups != 0) return wrong("supplementary groups are left");
  if ((state.effective | state.permitted | state.inheritable | state.ambient |
       (bounding_dropped ? state.bounding : 0)) != 0)
    return wrong(
        fmt::format("capabilities are left (effective {:#x}, permitted {:#x}, inheritable {:#x}, "
                    "ambient {:#x}, bounding {:#x})",
                    state.effective, state.permitted, state.inheritable, state.ambient, state.bounding));
  if (!state.no_new_privs) return wrong("no_new_privs is not set");
  return state;
}

}  // namespace

Result<SandboxState> ReadSandboxState() {
  SandboxState s;
  if (::getresuid(&s.ruid, &s.euid, &s.suid) != 0) return Errno(kNoDrop, "getresuid");
  if (::getresgid(&s.rgid, &s.egid, &s.sgid) != 0) return Errno(kNoDrop, "getresgid");
  s.supplementary_groups = ::getgroups(0, nullptr);
  auto caps = CapGet();
  if (!caps) return tl::unexpected(caps.error());
  s.effective = caps->effective;
  s.permitted = caps->permitted;
  s.inheritable = caps->inheritable;
  for (int cap = 0; cap <= kMaxCap && KnownCap(cap); ++cap) {
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) s.bounding |= uint64_t{1} << cap;
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1) s.ambient |= uint64_t{1} << cap;
  }
  s.no_new_privs = ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
  return s;
}

SandboxOptions ProbeSandboxOptions(bool shm_is_private) {
  SandboxOptions options;
  options.shm_is_private = shm_is_private;
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 4096> buffer{};
  if (::getpwnam_r(kProbeUser, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_uid != 0 && found->pw_gid != 0) {
    options.uid = found->pw_uid;
    options.gid = found->pw_gid;
  }
  return options;
}

Result<SandboxState> EnterSandbox(const SandboxOptions& options) {
  const bool as_root = ::geteuid() == 0;
  const uid_t uid = as_root ? options.uid : ::geteuid();
  const gid_t gid = as_root ? options.gid : ::getegid();
  // Not root: the saved ids become the effective ones too, so nothing can be regained later, and
  // the user namespace maps exactly these.
  if (!as_root) {
    if (auto ids = ChangeIds(uid, gid, false); !ids) return tl::unexpected(ids.error());
  }
  bool private_shm = true;
  if (auto shm = MountPrivateShm(as_root, uid, gid); !shm) {
    if (!options.shm_is_private) return tl::unexpected(shm.error());
    private_shm = false;  // the unit's own /dev/shm (its TemporaryFileSystem=)
  }
  // A caller that is neither root nor in its own user namespace (a service user under a unit that
  // forbids unshare) lacks CAP_SETPCAP and keeps its bounding set, which with no_new_privs can no
  // longer give it anything (prctl(2) PR_SET_NO_NEW_PRIVS: execve grants no capability).
  const bool may_drop_bounding = as_root || private_shm;
  if (may_drop_bounding) {
    if (auto bounding = EmptyBoundingSet(); !bounding) return tl::unexpected(bounding.error());
  }
  if (as_root) {
    if (auto ids = ChangeIds(uid, gid, true); !ids) return tl::unexpected(ids.error());
  }
  if (auto caps = ClearCapabilities(); !caps) return tl::unexpected(caps.error());
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Errno(kNoDrop, "no_new_privs");
  // Not dumpable: another process of the same uid may not ptrace it or read its memory.
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return Errno(kNoDrop, "dumpable");
  auto state = ReadSandboxState();
  if (!state) return state;
  state->private_shm = private_shm;
  return Verify(*state, as_root, may_drop_bounding);
}

}  // namespace rocmtune::sys
