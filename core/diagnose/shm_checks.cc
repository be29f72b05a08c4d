// Stale rocm-smi-lib mutex files. rocm-smi-lib keeps a process-shared robust mutex per GPU in
// /dev/shm/rocm_smi_<card> and creates it mode 0777 against the umask (src/rocm_smi_device.cc
// shared_mutex_init("/rocm_smi_" + dev, 0777); third_party/shared_mutex/shared_mutex.cc fchmod,
// ROCm/rocm_smi_lib rocm-6.1.2); the file stays until reboot (rocm_smi_lib PR 33). Any user can open
// it and hold the mutex: rsmi_init then waits 5 s and fails with RSMI_STATUS_BUSY ("stop all
// rocm_smi programs, and then delete the rocm_smi* shared memory files in /dev/shm"), and every
// rsmi call that locks the device waits (pthread_mutex_lock, include/rocm_smi/rocm_smi_utils.h
// ScopedPthread). rocmtune's own child has a /dev/shm of its own and passes
// RSMI_INIT_FLAG_THRAD_ONLY_MUTEX where the library has it; this finds the files others left.
// A file is stale when no process holds it open, read the way rocm-smi-lib itself asks (its lsof():
// the /proc/<pid>/fd links); where a process's links cannot be read, whether it is held is unknown.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "diagnose/checks.h"

namespace rocmtune::diagnose {
namespace {

constexpr const char* kShm = "dev/shm";
constexpr const char* kPrefix = "rocm_smi_";
constexpr const char* kSource = "ROCm/rocm_smi_lib third_party/shared_mutex/shared_mutex.cc (rocm-6.1.2)";

bool WorldWritable(const sys::Root& root, const std::string& rel) {
  auto fd = root.Open(rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  return fd && ::fstat(fd->get(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IWOTH) != 0;
}

// The /dev/shm paths some process holds open; `complete` is false when a process's descriptors
// could not be read (another user's, as a user; no /proc in the root).
struct Holders {
  std::set<std::string> paths;
  bool complete = true;
};

Holders ReadHolders(const sys::Root& root) {
  Holders h;
  auto pids = root.ListDir("proc");
  if (!pids) {
    h.complete = false;
    return h;
  }
  bool any = false;
  for (const std::string& pid : *pids) {
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), [](unsigned char c) { return std::isdigit(c); })) continue;
    any = true;
    auto fds = root.ListDir(fmt::format("proc/{}/fd", pid));
    if (!fds) {
      h.complete = false;
      continue;
    }
    for (const std::string& fd : *fds)
      if (auto target = root.ReadLink(fmt::format("proc/{}/fd/{}", pid, fd));
          target && target->starts_with("/dev/shm/"))
        h.paths.insert(*target);
  }
  if (!any) h.complete = false;
  return h;
}

}  // namespace

std::vector<Finding> ShmChecks(const sys::Root& root) {
  std::vector<Finding> out;
  auto names = root.ListDir(kShm);
  if (!names) return out;
  std::vector<std::string> files;
  for (const std::string& name : *names)
    if (name.starts_with(kPrefix) && WorldWritable(root, fmt::format("{}/{}", kShm, name))) files.push_back(name);
  if (files.empty()) return out;
  std::sort(files.begin(), files.end());
  const Holders holders = ReadHolders(root);
  for (const std::string& name : files) {
    const std::string path = fmt::format("/dev/shm/{}", name);
    if (holders.paths.contains(path)) continue;  // in use: not stale
    std::string held = holders.complete ? "no running process holds it"
                                        : "whether a running process holds it is unknown (not every process's "
                                          "/proc/PID/fd could be read)";
    out.push_back(MakeFinding(
        std::string(detect::FindingName(detect::FindingId::kLiveStaleSmiMutex)), detect::Severity::kWarning, path,
        fmt::format("{} is a rocm-smi-lib mutex file anyone may write, left by another program; {}", path, held),
        "Any user can hold this mutex: every program using rocm-smi-lib (rocm-smi, amd-smi before 6.4, monitoring "
        "agents) then waits for it, and rsmi_init fails with RSMI_STATUS_BUSY",
        holders.complete ? fmt::format("Remove it: rm {}", path)
                         : fmt::format("If no program holds it (fuser {}), remove it: rm {}", path, path),
        {kSource}));
  }
  return out;
}

}  // namespace rocmtune::diagnose
