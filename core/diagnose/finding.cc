#include "diagnose/finding.h"

#include <algorithm>

namespace rocmtune::diagnose {

namespace {
constexpr std::string_view kProcCmdline = "proc/cmdline";
}  // namespace

void MergeSameFacts(std::vector<Finding>& findings) {
  std::vector<Finding> out;
  out.reserve(findings.size());
  for (Finding& f : findings) {
    Place here{f.file, f.line};
    auto same = std::find_if(out.begin(), out.end(), [&](const Finding& o) {
      return !f.file.empty() && !o.file.empty() && o.id == f.id && o.gpu == f.gpu && o.subject == f.subject &&
             o.severity == f.severity && o.what == f.what;
    });
    if (same == out.end()) {
      if (!f.file.empty() && f.places.empty()) f.places.push_back(here);
      out.push_back(std::move(f));
      continue;
    }
    if (std::find(same->places.begin(), same->places.end(), here) == same->places.end()) same->places.push_back(here);
    for (std::string& e : f.evidence)
      if (std::find(same->evidence.begin(), same->evidence.end(), e) == same->evidence.end())
        same->evidence.push_back(std::move(e));
    // /proc/cmdline says what booted; the file that boots it next is where the fix is made.
    if (same->file == kProcCmdline && f.file != kProcCmdline) {
      same->file = f.file;
      same->line = f.line;
      same->fix = std::move(f.fix);
      std::stable_partition(same->places.begin(), same->places.end(),
                            [&](const Place& p) { return p.file == same->file && p.line == same->line; });
    }
  }
  findings = std::move(out);
}

Finding MakeFinding(std::string id, Severity severity, std::string subject, std::string what, std::string why,
                    std::string fix, std::vector<std::string> sources) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.kind = Kind::kMachine;
  f.subject = std::move(subject);
  f.what = std::move(what);
  f.why = std::move(why);
  f.fix.text = std::move(fix);
  f.sources = std::move(sources);
  return f;
}

}  // namespace rocmtune::diagnose
