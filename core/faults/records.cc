#include "faults/records.h"

#include <algorithm>
#include <map>
#include <string>

#include "faults/fault_line.h"
#include "util/text.h"

namespace rocmtune::faults {
namespace {

// The record a continuation line may join: the last one opened under a key, while it is recent.
struct Open {
  size_t index = 0;
  uint64_t last_usec = 0;
};

class Grouper {
 public:
  explicit Grouper(std::vector<FaultRecord>& out) : out_(out) {}

  FaultRecord& Start(FaultKind kind, const sys::LogEntry& e, const FaultLine& l) {
    FaultRecord& r = out_.emplace_back();
    r.kind = kind;
    r.realtime_usec = e.realtime_usec;
    r.boot_id = e.boot_id;
    r.cursor = e.cursor;
    if (!l.pci_address.empty()) r.pci_address = l.pci_address;
    r.kfd_node = l.kfd_node;
    if (e.transport == sys::LogTransport::kService) {
      r.unit = text::EscapeControl(e.unit.substr(0, kMaxFaultFieldBytes));
      r.process = text::EscapeControl(e.comm.substr(0, kMaxFaultFieldBytes));
      r.pid = e.pid;
      r.uid = e.uid;
    }
    Join(r, e, l);
    return r;
  }

  // The open record of `table[key]` if it is recent and (when given) of kind `kind`.
  FaultRecord* Recent(std::map<std::string, Open>& table, const std::string& key, const sys::LogEntry& e,
                      uint64_t window, std::optional<FaultKind> kind = std::nullopt) {
    auto it = table.find(key);
    if (it == table.end() || it->second.index >= out_.size()) return nullptr;
    if (e.realtime_usec < it->second.last_usec || e.realtime_usec - it->second.last_usec > window) return nullptr;
    FaultRecord& r = out_[it->second.index];
    if (kind && r.kind != *kind) return nullptr;
    it->second.last_usec = e.realtime_usec;
    return &r;
  }

  void Mark(std::map<std::string, Open>& table, const std::string& key, const sys::LogEntry& e) {
    table[key] = Open{out_.size() - 1, e.realtime_usec};
  }

  static void Join(FaultRecord& r, const sys::LogEntry& e, const FaultLine& l) {
    if (r.lines.size() < kMaxFaultLines) {
      // The L2 status lines' tabs (print_l2_protection_fault_status's "\t Faulty UTCL2 client
      // ID") read as spaces; every other control byte is escaped.
      std::string line = e.message;
      std::replace(line.begin(), line.end(), '\t', ' ');
      r.lines.push_back(text::EscapeControl(line));
    }
    if (!l.process.empty() && r.process.empty()) r.process = l.process;
    if (l.pid && !r.pid) r.pid = l.pid;
    if (!l.thread.empty() && r.thread.empty()) r.thread = l.thread;
    if (l.thread_pid && !r.thread_pid) r.thread_pid = l.thread_pid;
    if (l.pasid && !r.pasid) r.pasid = l.pasid;
    if (!l.hub.empty() && r.hub.empty()) r.hub = l.hub;
    if (!l.ring.empty() && r.ring.empty()) r.ring = l.ring;
    if (l.kfd_node && !r.kfd_node) r.kfd_node = l.kfd_node;
    if (!l.detail.empty() && r.detail.empty()) r.detail = l.detail;
  }

 private:
  std::vector<FaultRecord>& out_;
};

void MapGpu(FaultRecord& r, const detect::Inventory& inventory) {
  for (const detect::Gpu& g : inventory.gpus) {
    bool by_pci = r.pci_address && (g.id == *r.pci_address || g.physical_id == *r.pci_address);
    bool by_node = !r.pci_address && r.kfd_node && g.kfd_node == r.kfd_node;
    if (!by_pci && !by_node) continue;
    r.gpu = g.id;
    r.card = g.card;
    r.gfx_target = g.gfx_target;
    if (!r.kfd_node) r.kfd_node = g.kfd_node;
    return;
  }
}

}  // namespace

std::vector<FaultRecord> RecordsFromLog(const std::vector<sys::LogEntry>& entries, const detect::Inventory& inventory) {
  std::vector<FaultRecord> out;
  Grouper g(out);
  std::map<std::string, Open> block, reset, mes, eviction, runtime;
  for (const sys::LogEntry& e : entries) {
    FaultLine l = ReadFaultLine(e.message);
    if (l.form == LineForm::kNone) continue;
    const std::string key = e.boot_id + "|" + l.pci_address;
    switch (l.form) {
      case LineForm::kNone: break;
      case LineForm::kPageFault:
        g.Start(FaultKind::kPageFault, e, l);
        g.Mark(block, key, e);
        break;
      case LineForm::kTaskInfo:
      case LineForm::kFaultAddress:
      case LineForm::kL2Detail:
        if (FaultRecord* r = g.Recent(block, key, e, kBlockWindowUsec)) Grouper::Join(*r, e, l);
        break;
      case LineForm::kL2Status:
        if (FaultRecord* r = g.Recent(block, key, e, kBlockWindowUsec)) {
          Grouper::Join(*r, e, l);
        } else {  // the page-fault line was rate limited away: the status alone is the record
          g.Start(FaultKind::kProtectionFault, e, l);
          g.Mark(block, key, e);
        }
        break;
      case LineForm::kRingTimeout:
        g.Start(FaultKind::kRingTimeout, e, l);
        g.Mark(block, key, e);
        break;
      case LineForm::kRingSoftRecovered:
        g.Start(FaultKind::kRingTimeout, e, l).outcome = FaultOutcome::kSoftRecovered;
        break;
      case LineForm::kRingResetSucceeded:
      case LineForm::kRingResetFailed:
        if (FaultRecord* r = g.Recent(block, key, e, kResetWindowUsec, FaultKind::kRingTimeout)) {
          Grouper::Join(*r, e, l);
          r->outcome = l.form == LineForm::kRingResetSucceeded ? FaultOutcome::kSucceeded : FaultOutcome::kFailed;
        }
        break;
      case LineForm::kProcessInformation:
        if (FaultRecord* r = g.Recent(block, key, e, kBlockWindowUsec, FaultKind::kRingTimeout))
          Grouper::Join(*r, e, l);
        break;
      case LineForm::kResetBegin:
        g.Start(FaultKind::kGpuReset, e, l);
        g.Mark(reset, key, e);
        break;
      case LineForm::kResetSucceeded:
      case LineForm::kResetFailed: {
        FaultRecord* r = g.Recent(reset, key, e, kResetWindowUsec);
        if (r && r->outcome == FaultOutcome::kUnknown) {
          Grouper::Join(*r, e, l);
        } else {
          r = &g.Start(FaultKind::kGpuReset, e, l);
          g.Mark(reset, key, e);
        }
        r->outcome = l.form == LineForm::kResetSucceeded ? FaultOutcome::kSucceeded : FaultOutcome::kFailed;
        break;
      }
      case LineForm::kMes:
        if (FaultRecord* r = g.Recent(mes, key, e, kMesWindowUsec)) {
          Grouper::Join(*r, e, l);
        } else {
          g.Start(FaultKind::kMesFailure, e, l);
          g.Mark(mes, key, e);
        }
        break;
      case LineForm::kKfdEviction:
        if (FaultRecord* r = g.Recent(eviction, key, e, kBlockWindowUsec)) {
          Grouper::Join(*r, e, l);
        } else {
          g.Start(FaultKind::kKfdEviction, e, l);
          g.Mark(eviction, key, e);
        }
        break;
      case LineForm::kRuntimeFault: {
        const std::string who = e.boot_id + "|" + e.unit + "|" + (e.pid ? std::to_string(*e.pid) : e.comm);
        if (FaultRecord* r = g.Recent(runtime, who, e, kBlockWindowUsec)) {
          Grouper::Join(*r, e, l);
        } else {
          g.Start(FaultKind::kRuntimeFault, e, l);
          g.Mark(runtime, who, e);
        }
        break;
      }
    }
  }
  if (out.size() > kMaxFaultRecords) out.erase(out.begin(), out.end() - kMaxFaultRecords);
  for (FaultRecord& r : out) MapGpu(r, inventory);
  return out;
}

void SetBootOffsets(std::vector<FaultRecord>& records, const std::vector<sys::LogBoot>& boots) {
  for (FaultRecord& r : records)
    for (const sys::LogBoot& b : boots)
      if (!r.boot_id.empty() && b.boot_id == r.boot_id) r.boot = b.offset;
}

}  // namespace rocmtune::faults
