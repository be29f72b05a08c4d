// `doctor --log`: a crash log is text a person pasted (any bytes: NULs, invalid UTF-8, megabytes
// of it), matched by api::Doctor against the known-issue base for the GPUs of a world. The input
// is `WORLD` fuzz::kSeparator `LOG` with WORLD one of kWorlds; otherwise the whole input is the
// log on the first world, so a raw crash log is an input as it is.
// Invariants: the log changes only the report's `log` section (doctor's findings stay those
// without a log); the GPUs the log is matched for are those diagnose::ReadCrashLog says it names
// (every GPU when it names none, no GPU when it names only GPUs not here); the issue matches are
// exactly the issues whose rule holds for such a GPU (EvaluateKnownRisks) and one of whose
// symptoms the log holds (found with memmem, not the doctor's find), each once per GPU with every
// symptom the log shows; `log.missing-code-object` is there once per such GPU exactly when the
// log shows a missing-code error, `log.other-gpu` exactly when it names only GPUs not here, and
// `log.unexplained-crash` exactly when it shows a crash and nothing above a note explains it;
// likely_cause is the first cause; the document prints as JSON that parses back to itself and is
// never larger than every possible match at once.
#include <string.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/log_input.h"
#include "api/status.h"
#include "diagnose/crash_log.h"
#include "diagnose/known_issue_eval.h"
#include "fuzz_support.h"
#include "knowledge/known_issues.h"
#include "sys/root.h"
#include "util/json_text.h"

using namespace rocmtune;

namespace {

using json = nlohmann::ordered_json;

// RDNA1 (gfx1010), RDNA2 (gfx1030, gfx1032), Polaris (gfx803), 8 MI210s, and no AMD GPU at all
// (a log is then matched against the issues that name no GPU).
constexpr std::string_view kWorlds[] = {"rx5700xt", "rx6900xt", "rx6600", "rx580", "mi210x8", "no-amd"};

// One (issue id, GPU id) the log may match, with the issue's symptoms.
struct Candidate {
  std::string id;
  std::string gpu;
  std::vector<std::string> symptoms;
  std::vector<std::string> requires_symptom;  // one of these must be in the log too (none: no such need)
};

// A world and what its doctor report is without a log, computed once per process.
struct World {
  explicit World(std::string_view name) : scratch(name), root(*sys::Root::Open(scratch.path())) {
    auto status = api::Status(root);
    auto report = api::Doctor(root);
    if (!status || !report) std::abort();  // not a finding: the world itself cannot be read
    findings = api::DoctorJson(*report).at("findings");
    for (const detect::Gpu& g : report->gpus) gpu_ids.insert(g.id);
    inventory_gpus = status->inventory.gpus;
    // Doctor matches a log against the issues that name no GPU when there is none, or when the
    // log names only GPUs that are not here.
    std::vector<detect::Gpu> gpus = status->inventory.gpus;
    gpus.emplace_back();
    // The largest document a log can give: every issue whose rule holds, on every GPU, with all
    // its symptoms.
    api::DoctorReport worst = *report;
    worst.log_given = true;
    const knowledge::KnownIssues& issues = knowledge::KnownIssues::Builtin();
    for (const detect::Gpu& g : gpus) {
      const diagnose::IssueInputs inputs =
          diagnose::GpuInputs(root, diagnose::ProgramInputs(status->inventory, status->program), g);
      // The issues whose rule holds for a log: the machine's, and those whose only unmet
      // condition is a variable the judged environment does not set (the crashed program may set
      // it itself), found with a log that shows every symptom.
      for (const knowledge::KnownIssue& issue : issues.issues()) {
        std::string all;
        for (const std::string& s : issue.symptoms) all += s + "\n";
        for (const std::string& s : issue.requires_symptom) all += s + "\n";
        for (diagnose::IssueMatch& m : diagnose::EvaluateKnownIssues(issues, g, inputs, all)) {
          if (m.issue != &issue) continue;
          candidates.push_back({"issue." + issue.id, g.id, issue.symptoms, issue.requires_symptom});
          worst.log_matches.push_back(diagnose::IssueFinding(m));
        }
      }
    }
    // Beyond the issues: per GPU a missing-code and an unexplained-crash finding (and one
    // other-gpu), and the log's names (at most kMaxRefs, each naming at most every GPU).
    const size_t n = gpus.size();
    max_text = JsonText(api::DoctorJson(worst)).size() + n * 3 * 4096 + diagnose::kMaxRefs * (128 + 24 * n);
  }

  fuzz::ScratchRoot scratch;
  sys::Root root;
  std::set<std::string> gpu_ids;
  std::vector<detect::Gpu> inventory_gpus;
  json findings;
  std::vector<Candidate> candidates;
  size_t max_text = 0;
};

// `name` must outlive the process (an element of kWorlds): it is the map's key.
World& WorldNamed(std::string_view name) {
  static std::map<std::string_view, std::unique_ptr<World>> worlds;
  std::unique_ptr<World>& w = worlds[name];
  if (!w) w = std::make_unique<World>(name);
  return *w;
}

bool Contains(std::string_view log, const std::string& symptom) {
  return !symptom.empty() && ::memmem(log.data(), log.size(), symptom.data(), symptom.size()) != nullptr;
}

// The GPUs the log's matches may concern ("" for none).
std::set<std::string> Scope(const World& world, const diagnose::CrashLogReading& reading) {
  if (!reading.gpus.empty()) return {reading.gpus.begin(), reading.gpus.end()};
  if (reading.NamesOnlyOtherGpus() || world.gpu_ids.empty()) return {""};
  return world.gpu_ids;
}

// The (issue, GPU) pairs the log must match, each with the symptoms it shows.
std::map<std::pair<std::string, std::string>, std::vector<std::string>> Expected(const World& world,
                                                                                 const std::set<std::string>& scope,
                                                                                 std::string_view log) {
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> out;
  for (const Candidate& c : world.candidates) {
    if (scope.count(c.gpu) == 0) continue;
    std::vector<std::string> shown;
    for (const std::string& s : c.symptoms)
      if (Contains(log, s)) shown.push_back(s);
    if (shown.empty()) continue;
    if (!c.requires_symptom.empty()) {
      auto need = std::find_if(c.requires_symptom.begin(), c.requires_symptom.end(),
                               [&](const std::string& s) { return Contains(log, s); });
      if (need == c.requires_symptom.end()) continue;
      if (std::find(shown.begin(), shown.end(), *need) == shown.end()) shown.push_back(*need);
    }
    out[{c.id, c.gpu}] = shown;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzz::AsText(data, size);
  // The world's name as kWorlds holds it: WorldNamed keeps it as a key beyond this input.
  std::string_view world_name = kWorlds[0];
  std::string_view log = input;
  auto parts = fuzz::SplitInput(input, 2);
  const auto* named = std::find(std::begin(kWorlds), std::end(kWorlds), parts[0]);
  if (named != std::end(kWorlds) && input.size() > parts[0].size()) {
    world_name = *named;
    log = parts[1];
  }
  const World& world = WorldNamed(world_name);

  auto report = api::Doctor(world.root, std::string(log));
  if (!report || !report->log_given) std::abort();
  const json doc = api::DoctorJson(*report);
  if (doc.at("findings") != world.findings) std::abort();

  const diagnose::CrashLogReading reading = diagnose::ReadCrashLog(log, world.inventory_gpus);
  // The bounds ReadCrashLog keeps whatever the log's size and number of names.
  if (reading.refs.size() > diagnose::kMaxRefs) std::abort();
  // What rocmtuned's Doctor takes (api/log_input.h): the text DoctorLogAsText makes of any log
  // passes its check, changes no valid UTF-8 text without NUL, and is a fixed point.
  const std::string as_text = api::DoctorLogAsText(log);
  if (log.size() <= api::kMaxDoctorLogBytes / 3 && !api::CheckDoctorLogText(as_text)) std::abort();
  if (api::CheckDoctorLogText(log) && as_text != log) std::abort();
  if (api::DoctorLogAsText(as_text) != as_text) std::abort();
  const std::set<std::string> scope = Scope(world, reading);
  // The GPUs the log names are GPUs of the world.
  for (const std::string& id : reading.gpus)
    if (world.gpu_ids.count(id) == 0) std::abort();

  // Exactly the expected issue matches, each once, for a GPU in scope.
  auto expected = Expected(world, scope, log);
  std::multiset<std::string> missing_code, unexplained;
  size_t other = 0;
  bool explained = false;
  for (const api::DoctorFinding& f : report->log_matches) {
    if (scope.count(f.subject) == 0 && f.id != "log.unexplained-crash") std::abort();
    if (f.id == "log.missing-code-object") {
      missing_code.insert(f.subject);
    } else if (f.id == "log.other-gpu") {
      ++other;
    } else if (f.id == "log.unexplained-crash") {
      unexplained.insert(f.subject);
      continue;
    } else {
      auto it = expected.find({f.id, f.subject});
      if (it == expected.end() || it->second != f.symptoms) std::abort();
      expected.erase(it);  // a second match of the same pair finds nothing left
    }
    explained = explained || f.severity != detect::Severity::kInfo;
  }
  if (!expected.empty()) std::abort();
  if (missing_code != (reading.missing_code.empty() ? std::multiset<std::string>()
                                                    : std::multiset<std::string>(scope.begin(), scope.end())))
    std::abort();
  if (other != (reading.NamesOnlyOtherGpus() ? 1u : 0u)) std::abort();
  std::multiset<std::string> want_unexplained;
  if (!reading.crash.empty() && !explained) {
    if (reading.gpus.empty()) want_unexplained.insert("");
    want_unexplained.insert(reading.gpus.begin(), reading.gpus.end());
  }
  if (unexplained != want_unexplained) std::abort();

  const json& section = doc.at("log");
  if (section.at("matches").size() != report->log_matches.size()) std::abort();
  auto cause = std::find_if(report->log_matches.begin(), report->log_matches.end(), diagnose::IsLogCause);
  if (cause == report->log_matches.end() ? !section.at("likely_cause").is_null()
                                         : section.at("likely_cause") != cause->id)
    std::abort();

  // What `doctor --json` prints parses back to the same document, and stays bounded.
  const std::string text = JsonText(doc);
  if (text.size() > world.max_text) std::abort();
  if (json::parse(text, nullptr, false) != doc) std::abort();
  return 0;
}
