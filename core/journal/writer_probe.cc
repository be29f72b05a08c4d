#include "journal/writer_probe.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "journal/journal.h"

namespace rocmtune::journal {

bool WriterRunning(const sys::Root& root) {
  auto fd = root.Open(kLockFile, O_RDONLY | O_NOCTTY);
  if (!fd) return false;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return false;
  // /proc/locks (proc(5)): "1: FLOCK  ADVISORY  WRITE 4711 fd:01:1234567 0 EOF"; the device is
  // MAJOR:MINOR in hex, the inode in decimal. The process's own /proc, not the root's: a world's
  // lock file is a file of this machine.
  std::ifstream locks("/proc/locks");
  const std::string wanted = [&] {
    char text[64];
    std::snprintf(text, sizeof(text), "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                  static_cast<unsigned long long>(st.st_ino));
    return std::string(text);
  }();
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string id, kind, mode, access, pid, where;
    if (!(fields >> id >> kind)) continue;
    if (kind == "->") fields >> kind;  // a waiter: "1: -> FLOCK ..."
    if (kind != "FLOCK" || !(fields >> mode >> access >> pid >> where)) continue;
    if (where == wanted) return true;
  }
  return false;
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
