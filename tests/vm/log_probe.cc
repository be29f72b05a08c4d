// rocmtune_vm_log_probe: what sys::ReadSystemLog returns on the running system, for the QEMU
// scenario faults-kmsg (tests/vm/scenarios/faults-kmsg.sh), which carries this binary into the
// guest. One line each, so that the scenario's checks can grep them:
//   S SOURCE ENTRIES BOOTS NOT_PERMITTED WHY_NONE
//   E TRANSPORT WRITTEN UNIT|- MESSAGE          (one per entry, oldest first; tabs as \t)
//   C LAST_CURSOR
//   usage: rocmtune_vm_log_probe [--boot N] [--after CURSOR]      exit 0, or 1 with the error
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sys/root.h"
#include "sys/system_log.h"

using namespace rocmtune;

namespace {

const char* SourceName(sys::LogSource s) {
  switch (s) {
    case sys::LogSource::kJournal: return "journal";
    case sys::LogSource::kKmsg: return "kmsg";
    case sys::LogSource::kNone: return "none";
  }
  return "?";
}

std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  sys::LogQuery query;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view option = argv[i];
    if (option == "--boot") {
      query.boot = static_cast<int>(std::strtol(argv[i + 1], nullptr, 10));
    } else if (option == "--after") {
      query.after_cursor = argv[i + 1];
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  auto root = sys::Root::Open("/");
  if (!root) {
    std::fprintf(stderr, "%s\n", root.error().message.c_str());
    return 1;
  }
  auto read = sys::ReadSystemLog(*root, query);
  if (!read) {
    std::fprintf(stderr, "%s\n", read.error().message.c_str());
    return 1;
  }
  std::printf("S %s %zu %zu %zu %s\n", SourceName(read->source), read->entries.size(), read->boots.size(),
              read->files_not_permitted, read->why_none.c_str());
  for (const sys::LogEntry& e : read->entries) {
    std::printf("E %s %d %s %s\n", e.transport == sys::LogTransport::kKernel ? "kernel" : "service",
                e.written_by_process ? 1 : 0, e.unit.empty() ? "-" : e.unit.c_str(), OneLine(e.message).c_str());
  }
  std::printf("C %s\n", read->last_cursor.c_str());
  return 0;
}
