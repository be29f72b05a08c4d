// The system log's lines as fault records (faults/records.h): what any program can put in the
// journal (its standard output) or a kernel module in the kernel log reaches this parser.
// Invariants: never a crash; at most kMaxFaultRecords records, each with at most kMaxFaultLines
// lines, every line and name valid UTF-8 without control bytes (escaped), names bounded, a GPU
// only of the inventory, records in the order of their first line, and each record's JSON
// (api::FaultRecordJson) dumps.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "api/faults.h"
#include "faults/fault_line.h"
#include "faults/records.h"
#include "fuzz_support.h"
#include "util/content_json.h"

using namespace rocmtune;

namespace {

detect::Inventory FuzzGpus() {
  detect::Inventory inv;
  for (auto [id, node] : {std::pair<const char*, int>{"0000:03:00.0", 1}, {"0000:0c:00.0", 2}}) {
    detect::Gpu g;
    g.id = id;
    g.physical_id = id;
    g.card = "card" + std::to_string(node);
    g.kfd_node = node;
    g.gfx_target = "gfx1010";
    inv.gpus.push_back(g);
  }
  return inv;
}

bool Clean(std::string_view s, size_t max) {
  if (s.size() > max || !IsValidUtf8(s)) return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

// One entry a line, half a second apart (so the grouping windows open and close); a line
// starting with "S " is a service's (ollama.service, pid 900, uid 998), the rest the kernel's.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const detect::Inventory kGpus = FuzzGpus();
  std::string_view input = fuzz::AsText(data, size);
  std::vector<sys::LogEntry> entries;
  uint64_t t = 1'000'000;
  for (size_t pos = 0; pos <= input.size() && entries.size() < 4000;) {
    size_t end = std::min(input.find('\n', pos), input.size());
    std::string_view line = input.substr(pos, end - pos);
    sys::LogEntry e;
    e.realtime_usec = t;
    t += line.size() % 3 == 0 ? 500'000 : 3;
    e.boot_id = "0123456789abcdef0123456789abcdef";
    if (line.starts_with("S ")) {
      e.transport = sys::LogTransport::kService;
      e.unit = "ollama.service";
      e.comm = "ollama";
      e.pid = 900;
      e.uid = 998;
      line.remove_prefix(2);
    }
    e.message = std::string(line.substr(0, sys::kMaxMessageBytes));
    static_cast<void>(faults::ReadFaultLine(e.message));
    entries.push_back(std::move(e));
    pos = end + 1;
  }
  std::vector<faults::FaultRecord> records = faults::RecordsFromLog(entries, kGpus);
  if (records.size() > faults::kMaxFaultRecords) __builtin_trap();
  uint64_t last = 0;
  for (const faults::FaultRecord& r : records) {
    if (r.lines.empty() || r.lines.size() > faults::kMaxFaultLines) __builtin_trap();
    if (r.realtime_usec < last) __builtin_trap();
    last = r.realtime_usec;
    for (const std::string& l : r.lines)
      if (!Clean(l, 4 * sys::kMaxMessageBytes)) __builtin_trap();
    for (const std::string* name : {&r.process, &r.thread, &r.ring, &r.hub, &r.unit})
      if (!Clean(*name, 4 * faults::kMaxFaultFieldBytes)) __builtin_trap();
    if (!Clean(r.detail, 4 * faults::kMaxFaultDetailBytes)) __builtin_trap();
    if (!r.gpu.empty() && r.gpu != "0000:03:00.0" && r.gpu != "0000:0c:00.0") __builtin_trap();
    if (!faults::ParseFaultKind(faults::FaultKindName(r.kind))) __builtin_trap();
    static_cast<void>(api::FaultRecordJson(r).dump());
  }
  return 0;
}
