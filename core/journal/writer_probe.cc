#include "journal/writer_probe.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "journal/journal.h"
#include "util/text.h"

namespace rocmtune::journal {

namespace {

struct LockLine {
  bool waiter = false;
  pid_t pid = 0;
  std::string where;  // MAJOR:MINOR:INODE, the device in hex
};

// /proc/locks (proc(5)): "1: FLOCK  ADVISORY  WRITE 4711 fd:01:1234567 0 EOF"; a waiter's line
// reads "1: -> FLOCK ...". Lines of other kinds (POSIX, OFDLCK) are left out.
std::vector<LockLine> FlockLines(std::string_view locks) {
  std::vector<LockLine> out;
  std::istringstream in{std::string(locks)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, kind, mode, access, pid, where;
    if (!(fields >> id >> kind)) continue;
    LockLine l;
    if (kind == "->") {
      l.waiter = true;
      fields >> kind;
    }
    if (kind != "FLOCK" || !(fields >> mode >> access >> pid >> where)) continue;
    auto n = text::ParseU64(pid);
    if (!n || *n == 0 || *n > static_cast<uint64_t>(std::numeric_limits<pid_t>::max())) continue;
    l.pid = static_cast<pid_t>(*n);
    l.where = std::move(where);
    out.push_back(std::move(l));
  }
  return out;
}

std::string Where(dev_t dev, ino_t ino) {
  return fmt::format("{:02x}:{:02x}:{}", major(dev), minor(dev), static_cast<unsigned long long>(ino));
}

std::string ReadProc(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

bool WriterRunning(const sys::Root& root) {
  auto fd = root.Open(kLockFile, O_PATH | O_NOFOLLOW);
  if (!fd) return false;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return false;
  // The process's own /proc, not the root's: a world's lock file is a file of this machine.
  const std::string wanted = Where(st.st_dev, st.st_ino);
  for (const LockLine& l : FlockLines(ReadProc("/proc/locks")))
    if (l.where == wanted) return true;
  return false;
}

std::vector<LockHolder> LockHolders(dev_t dev, ino_t ino) {
  const std::string wanted = Where(dev, ino);
  std::vector<LockHolder> out;
  for (const LockLine& l : FlockLines(ReadProc("/proc/locks"))) {
    if (l.waiter || l.where != wanted) continue;
    LockHolder h;
    h.pid = l.pid;
    const std::string proc = fmt::format("/proc/{}/", l.pid);
    h.command = std::string(text::Trim(ReadProc(proc + "comm")));
    // "Uid:\t<real>\t<effective>\t<saved>\t<filesystem>"
    const std::string status = ReadProc(proc + "status");  // outlives the views SplitLines returns
    for (std::string_view line : text::SplitLines(status)) {
      if (!line.starts_with("Uid:")) continue;
      std::istringstream fields{std::string(line.substr(4))};
      std::string real, effective;
      if (fields >> real >> effective)
        if (auto uid = text::ParseU64(effective); uid && *uid <= std::numeric_limits<uid_t>::max())
          h.uid = static_cast<uid_t>(*uid);
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::string DescribeHolders(const std::vector<LockHolder>& holders) {
  std::string out;
  for (const LockHolder& h : holders) {
    if (!out.empty()) out += ", ";
    out += fmt::format("pid {} ({}, uid {})", h.pid, h.command.empty() ? "?" : text::EscapeControl(h.command),
                       h.uid ? std::to_string(*h.uid) : std::string("?"));
  }
  return out;
}

bool LastIsRunning(const sys::Root& root, const std::vector<Transaction>& txns) {
  if (txns.empty() || txns.back().state != State::kIncomplete) return false;
  if (WriterRunning(root)) return true;
  auto again = Load(root);
  if (!again) return false;
  for (const Transaction& t : *again)
    if (t.id == txns.back().id) return t.state != State::kIncomplete;
  return false;
}

}  // namespace rocmtune::journal
