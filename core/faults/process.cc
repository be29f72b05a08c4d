#include "faults/process.h"

#include <cctype>

#include <fmt/format.h>

#include "knobs/env_sources.h"
#include "knobs/setting_findings.h"
#include "program/context.h"
#include "util/text.h"

namespace rocmtune::faults {
namespace {

constexpr size_t kMaxEnvironBytes = 256u << 10;
constexpr size_t kCommLen = 15;  // TASK_COMM_LEN - 1: the kernel logs a name cut to this

// The variables that decide what a program's ROCm does (the same names rocmtune checks).
bool RocmVariable(std::string_view name) {
  for (std::string_view p : {"HSA_", "HIP_", "ROCR_", "HCC_", "GPU_DEVICE_ORDINAL"})
    if (name.starts_with(p)) return true;
  return knobs::KnownEnvName(name);
}

std::optional<uint32_t> RealUid(std::string_view status) {
  for (std::string_view line : text::SplitLines(status)) {
    if (!line.starts_with("Uid:")) continue;
    std::vector<std::string_view> t = text::Tokens(line.substr(4));
    if (t.empty()) return std::nullopt;
    auto v = text::ParseU64(t[0]);
    if (v && *v <= UINT32_MAX) return static_cast<uint32_t>(*v);
  }
  return std::nullopt;
}

std::string UserNameOf(const std::string& passwd, uint32_t uid) {
  const std::string id = std::to_string(uid);
  for (std::string_view line : text::SplitLines(passwd)) {
    const std::vector<std::string_view> f = text::SplitFields(line, ':');  // name:password:uid:...
    if (f.size() > 2 && f[2] == id) return text::EscapeControl(f[0].substr(0, kMaxFaultFieldBytes));
  }
  return "";
}

// The running process `r.pid` when it is the program the record names.
void FromRunningProcess(const sys::Root& root, FaultRecord& r) {
  const std::string dir = fmt::format("proc/{}", *r.pid);
  auto comm = root.ReadFile(dir + "/comm", 256);
  if (!comm) return;
  std::string name = text::Clean(*comm);
  if (name.empty() || name.substr(0, kCommLen) != r.process.substr(0, kCommLen)) return;
  if (!r.uid)
    if (auto status = root.ReadFile(dir + "/status", 64u << 10)) r.uid = RealUid(*status);
  auto environ = root.ReadFile(dir + "/environ", kMaxEnvironBytes);
  if (!environ) return;  // another user's process: its environment is not ours to read
  std::vector<std::string> entries;
  size_t start = 0;
  while (start < environ->size()) {
    size_t end = environ->find('\0', start);
    if (end == std::string::npos) end = environ->size();
    entries.emplace_back(environ->substr(start, end - start));
    start = end + 1;
  }
  r.env = knobs::ProcessEnvSettings(entries, RocmVariable);
  r.env_source = fmt::format("the environment of process {} ({}), which still runs", *r.pid, r.process);
}

void FromUnit(const sys::Root& root, FaultRecord& r) {
  auto ctx = program::UnitContext(root, r.unit, false, "");
  if (!ctx || !ctx->starts) return;
  for (const knobs::EnvSetting& s : ctx->env)
    if (RocmVariable(s.name)) r.env.push_back(s);
  r.env_source = fmt::format("the configured environment of {}", r.unit);
}

}  // namespace

std::string ThisBootId(const sys::Root& root) {
  auto id = root.ReadFile("proc/sys/kernel/random/boot_id", 128);
  if (!id) return "";
  std::string out;
  for (char c : text::Clean(*id))
    if (c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void AddProcessFacts(const sys::Root& root, std::string_view boot_id, std::vector<FaultRecord>& records) {
  std::optional<std::string> passwd;
  for (FaultRecord& r : records) {
    bool this_boot = r.boot ? *r.boot == 0 : (!boot_id.empty() && r.boot_id == boot_id);
    if (this_boot && r.pid && !r.process.empty()) FromRunningProcess(root, r);
    if (r.env_source.empty() && r.unit.ends_with(".service")) FromUnit(root, r);
    if (r.uid && r.user.empty()) {
      if (!passwd) passwd = root.ReadFile("etc/passwd").value_or("");
      r.user = UserNameOf(*passwd, *r.uid);
    }
  }
}

}  // namespace rocmtune::faults
