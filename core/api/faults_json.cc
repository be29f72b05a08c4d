// rocmtune.faults.v1 and doctor's "faults" member (rocmtunectl(1), JSON DOCUMENTS).
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/faults.h"
#include "faults/cause.h"
#include "util/json_text.h"

namespace rocmtune::api {
namespace {

using json = nlohmann::ordered_json;

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string_view SourceName(sys::LogSource s) {
  switch (s) {
    case sys::LogSource::kJournal: return "journal";
    case sys::LogSource::kKmsg: return "kmsg";
    case sys::LogSource::kNone: return "none";
  }
  return "none";
}

}  // namespace

std::string FaultTimeText(uint64_t usec) {
  time_t t = static_cast<time_t>(usec / 1'000'000);
  std::tm tm{};
  if (!gmtime_r(&t, &tm)) return "";
  char buf[32];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

json FaultRecordJson(const faults::FaultRecord& r) {
  json env = json::array();
  for (const knobs::EnvSetting& s : r.env)
    env.push_back({{"name", s.name},
                   {"value", OrNull(s.value)},
                   {"file", StringOrNull(s.file)},
                   {"line", s.line > 0 ? json(s.line) : json(nullptr)}});
  json causes = json::array();
  for (const detect::Finding& f : r.causes) causes.push_back(DoctorFindingJson(f));
  const detect::Finding* cause = faults::LikelyCause(r);
  return {{"kind", faults::FaultKindName(r.kind)},
          {"description", faults::FaultKindDescription(r.kind)},
          {"time", FaultTimeText(r.realtime_usec)},
          {"realtime_usec", r.realtime_usec},
          {"boot_id", StringOrNull(r.boot_id)},
          {"boot", OrNull(r.boot)},
          {"gpu", StringOrNull(r.gpu)},
          {"card", OrNull(r.card)},
          {"pci_address", OrNull(r.pci_address)},
          {"gfx_target", OrNull(r.gfx_target)},
          {"kfd_node", OrNull(r.kfd_node)},
          {"pasid", OrNull(r.pasid)},
          {"hub", StringOrNull(r.hub)},
          {"ring", StringOrNull(r.ring)},
          {"outcome", faults::FaultOutcomeName(r.outcome)},
          {"detail", StringOrNull(r.detail)},
          {"process", StringOrNull(r.process)},
          {"pid", OrNull(r.pid)},
          {"thread", StringOrNull(r.thread)},
          {"thread_pid", OrNull(r.thread_pid)},
          {"unit", StringOrNull(r.unit)},
          {"uid", OrNull(r.uid)},
          {"user", StringOrNull(r.user)},
          {"environment", {{"source", StringOrNull(r.env_source)}, {"variables", env}}},
          {"likely_cause", cause ? json(cause->id) : json(nullptr)},
          {"causes", causes},
          {"lines", r.lines},
          {"cursor", StringOrNull(r.cursor)}};
}

json FaultsJson(const FaultsReport& report) {
  json records = json::array();
  json counts = json::object();
  for (const faults::FaultKindInfo& k : faults::FaultKinds()) counts[std::string(k.name)] = 0;
  for (const faults::FaultRecord& r : report.records) {
    records.push_back(FaultRecordJson(r));
    counts[std::string(faults::FaultKindName(r.kind))] =
        counts[std::string(faults::FaultKindName(r.kind))].get<int>() + 1;
  }
  return {{"schema", "rocmtune.faults.v1"},
          {"source", SourceName(report.source)},
          {"why_none", StringOrNull(report.why_none)},
          {"truncated", report.truncated},
          {"this_boot_id", StringOrNull(report.this_boot_id)},
          {"counts", counts},
          {"faults", records}};
}

json DoctorFaultsJson(const FaultsReport& report) {
  json now = json::array();
  size_t earlier = 0;
  for (const faults::FaultRecord& r : report.records) {
    if (ThisBoot(report, r)) now.push_back(FaultRecordJson(r));
    else ++earlier;
  }
  return {{"source", SourceName(report.source)},
          {"why_none", StringOrNull(report.why_none)},
          {"this_boot", now},
          {"earlier_boots", earlier}};
}

}  // namespace rocmtune::api
