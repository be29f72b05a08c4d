// `reset --purge-plan` (api/purge_plan.h) on state someone else may have edited: a copy of the
// rx6600 world after `set amdgpu.runpm=0 cmdline.iommu=pt env.HSA_ENABLE_SDMA=0`, whose journal,
// command-line token record, modprobe.d drop-in and /etc/default/grub are the input, split
// (fuzz::kSeparator) in that order. The package's purge script runs the plan as root after the
// helper is gone, so what it relies on is checked here: the header first; every line a known step
// of plain words ([A-Za-z0-9._/+=,:@-]); every path root-relative without an empty, "." or ".."
// part; every file step numbered with its N.new (write) and only the N.expect/N.new files; every
// file a path the helper's allow-list lets a plan name; every command one of api::PurgeCommands().
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/change.h"
#include "api/purge_plan.h"
#include "fuzz_support.h"
#include "helper/allow_list.h"
#include "helper/executor.h"
#include "helper/step_hook.h"
#include "sys/root.h"

using namespace rocmtune;

namespace {

constexpr std::string_view kFiles[] = {
    "var/lib/rocmtune/journal/000001.jsonl",
    "var/lib/rocmtune/cmdline-tokens",
    "etc/modprobe.d/rocmtune.conf",
    "etc/default/grub",
};

// The first change is carried out in this process by the helper's executor.
class ExecutorWriter final : public api::Writer {
 public:
  explicit ExecutorWriter(const sys::Root& root) : root_(root) {}
  Result<void> MayWrite(const sys::Root&) const override { return {}; }
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool force) override {
    helper::Executor executor(root_, hooks_);
    return executor.Run(plan, {force, true});
  }
  Result<plan::HelperReply> Recover() override {
    helper::Executor executor(root_, hooks_);
    return executor.Recover({false, true});
  }

 private:
  const sys::Root& root_;
  helper::NoHooks hooks_;
};

// Planning the purge writes nothing: a writer that is reached is a bug.
class NoWriter final : public api::Writer {
 public:
  Result<void> MayWrite(const sys::Root&) const override { return {}; }
  Result<plan::HelperReply> Apply(const plan::Plan&, bool) override { std::abort(); }
  Result<plan::HelperReply> Recover() override { std::abort(); }
};

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  for (size_t start = 0; start <= line.size();) {
    size_t end = std::min(line.find(' ', start), line.size());
    words.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

bool Plain(std::string_view word) {
  if (word.empty()) return false;
  for (char c : word) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("._/+=,:@-").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

bool RootRelative(std::string_view path) {
  if (path.front() == '/' || path.back() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

void CheckFileStep(const api::PurgePlan& purge, const plan::Plan& reset, std::string_view verb, std::string_view n,
                   std::string_view path, std::set<std::string>& named) {
  if (n.empty() || n.find_first_not_of("0123456789") != std::string_view::npos || n.front() == '0') std::abort();
  auto has = [&](const std::string& name) {
    for (const auto& [file, content] : purge.files)
      if (file == name) return true;
    return false;
  };
  if (verb == "write" && !has(std::string(n) + ".new")) std::abort();
  named.insert(std::string(n) + ".new");
  named.insert(std::string(n) + ".expect");
  // The reset's op for this path, held to the helper's allow-list as the helper would hold it.
  const plan::OpKind kind = verb == "write" ? plan::OpKind::kWriteFile : plan::OpKind::kRemoveFile;
  auto op = std::find_if(reset.ops.begin(), reset.ops.end(),
                         [&](const plan::Op& o) { return o.kind == kind && o.path == path; });
  if (op == reset.ops.end() || !helper::CheckFileTarget(*op)) std::abort();
}

void CheckPurgePlan(const api::PurgePlan& purge, const plan::Plan& reset) {
  std::string_view text = purge.text;
  if (!text.starts_with(std::string(api::kPurgePlanHeader) + "\n") || !text.ends_with('\n')) std::abort();
  text.remove_prefix(api::kPurgePlanHeader.size() + 1);
  std::set<std::string> named;
  while (!text.empty()) {
    std::string_view line = text.substr(0, text.find('\n'));
    text.remove_prefix(line.size() + 1);
    std::vector<std::string_view> w = Words(line);
    for (std::string_view word : w)
      if (!Plain(word)) std::abort();
    const std::string_view verb = w[0];
    if (verb == "write" || verb == "remove") {
      if (w.size() != 3 || !RootRelative(w[2])) std::abort();
      CheckFileStep(purge, reset, verb, w[1], w[2], named);
    } else if (verb == "rmdir" || verb == "left") {
      if (w.size() != 2 || !RootRelative(w[1])) std::abort();
    } else if (verb == "run") {
      // Exactly a command the purge script accepts (it refuses the whole plan otherwise).
      if (w.size() < 2 || !api::IsPurgeCommand(line.substr(4))) std::abort();
    } else {
      std::abort();
    }
  }
  for (const auto& [file, content] : purge.files)
    if (!named.contains(file)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("rx6600");
  static const sys::Root root = [] {
    sys::Root r = *sys::Root::Open(world.path());
    ExecutorWriter writer(r);
    api::ChangeOptions options;
    options.on_event = nullptr;
    auto done = api::Set(r, {"amdgpu.runpm=0", "cmdline.iommu=pt", "env.HSA_ENABLE_SDMA=0"}, options, writer);
    if (!done || done->status != api::ChangeStatus::kOk) std::abort();
    return r;
  }();

  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), std::size(kFiles));
  for (size_t i = 0; i < std::size(kFiles); ++i) world.Write(kFiles[i], parts[i]);
  NoWriter writer;
  api::ChangeOptions options{.check = true, .force = false, .on_planned = nullptr, .on_event = nullptr};
  auto report = api::Reset(root, options, writer);
  if (!report) return 0;
  auto purge = api::MakePurgePlan(root, *report);
  if (!purge) return 0;
  CheckPurgePlan(*purge, report->plan);
  return 0;
}
