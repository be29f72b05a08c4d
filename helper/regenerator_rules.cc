// Regenerators: the only programs the helper runs (as root, without a shell). Each is a bare
// name from the fixed table (plan/regenerator.cc), found on the helper's own fixed PATH, and
// its whole argv must be one of the shapes knobs/cmdline_backend.cc and boot/initramfs.cc make.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "helper/allow_list.h"
#include "helper/rules.h"

namespace rocmtune::helper {
namespace {

using Args = std::span<const std::string>;

// grub-mkconfig / grub2-mkconfig: `-o /boot/<...>/grub.cfg` and nothing else. The output is
// the one file they write; anything else under -o (or no -o: stdout) is not a regeneration.
Result<void> GrubMkconfigArgs(Args args) {
  if (args.size() != 2 || args[0] != "-o") return Refuse(rule::kRegenArgv, "only `-o /boot/.../grub.cfg` is allowed");
  std::string_view out = args[1];
  if (!out.starts_with("/boot/") || !out.ends_with("/grub.cfg") || !CheckPathSyntax(out.substr(1)))
    return Refuse(rule::kRegenArgv, fmt::format("'{}' is not a grub.cfg under /boot", out));
  return {};
}

// Space-separated tokens of a grubby --args / --remove-args value, as the backend joins them.
std::vector<std::string_view> SplitSpaces(std::string_view list) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    size_t sp = list.find(' ', start);
    out.push_back(list.substr(start, sp == std::string_view::npos ? std::string_view::npos : sp - start));
    if (sp == std::string_view::npos) return out;
    start = sp + 1;
  }
}

// grubby --update-kernel=ALL [--args=TOKENS] [--remove-args=KEYS], at least one of the two, in
// this order: grubby edits every BLS entry (and grubenv) itself, so its arguments are the edit.
Result<void> GrubbyArgs(Args args) {
  if (args.empty() || args[0] != "--update-kernel=ALL")
    return Refuse(rule::kRegenArgv, "grubby runs as `grubby --update-kernel=ALL --args=... --remove-args=...`");
  size_t i = 1;
  struct Flag {
    std::string_view flag;
    Result<void> (*check)(std::string_view token);
  };
  static constexpr Flag kFlags[] = {{"--args=", CheckAddedToken}, {"--remove-args=", CheckRemovedToken}};
  for (auto [flag, check] : kFlags) {
    if (i >= args.size() || !std::string_view(args[i]).starts_with(flag)) continue;
    for (std::string_view token : SplitSpaces(std::string_view(args[i]).substr(flag.size()))) {
      if (token.empty()) return Refuse(rule::kRegenArgv, fmt::format("an empty token in {}", flag));
      if (auto ok = check(token); !ok) return ok;
    }
    ++i;
  }
  if (i == 1 || i != args.size())
    return Refuse(rule::kRegenArgv,
                  "grubby takes --args= and/or --remove-args= after --update-kernel=ALL, nothing else");
  return {};
}

// kernelstub -a "TOKENS" | kernelstub -d "TOKENS" (boot/kernelstub_setup.h): pop-os/kernelstub's
// bin/kernelstub --add-options/--delete-options take one value that application.py splits on " ";
// every token is one rocmtune may add (-a) or take off (-d, a whole KEY=VALUE it added). Nothing
// else: -o would replace every option, -e/-k/-i/-r/-l/-s/-m change where and how it boots.
Result<void> KernelstubArgs(Args args) {
  if (args.size() != 2 || (args[0] != "-a" && args[0] != "-d"))
    return Refuse(rule::kRegenArgv,
                  "kernelstub runs only as `kernelstub -a \"OPTIONS\"` or `kernelstub -d \"OPTIONS\"`");
  const bool add = args[0] == "-a";
  for (std::string_view token : SplitSpaces(args[1])) {
    if (token.empty()) return Refuse(rule::kRegenArgv, fmt::format("an empty option in kernelstub {}", args[0]));
    // kernelstub's parse_options joins words around a '"' into one option: never such a word.
    if (token.find('"') != std::string_view::npos)
      return Refuse(rule::kRegenArgv, fmt::format("'{}': kernelstub joins quoted words", token));
    if (auto ok = add ? CheckAddedToken(token) : CheckRemovedToken(token); !ok) return ok;
    if (!add)
      if (auto ok = CheckAddedToken(token); !ok) return ok;  // -d removes exact options: rocmtune's own
  }
  return {};
}

// systemctl daemon-reload, systemctl try-restart power-profiles-daemon.service (knobs/service_backend.h).
Result<void> SystemctlArgs(Args args) {
  for (bool restart : {false, true}) {
    std::vector<std::string> argv = plan::SystemctlArgv(restart);
    if (std::equal(args.begin(), args.end(), argv.begin() + 1, argv.end())) return {};
  }
  return Refuse(rule::kRegenArgv,
                "systemctl runs only as `systemctl daemon-reload` or `systemctl try-restart "
                "power-profiles-daemon.service`");
}

// busctl: power-profiles-daemon's SetActionEnabled for amdgpu_dpm, true or false, and no other call.
Result<void> BusctlArgs(Args args) {
  for (bool enabled : {false, true}) {
    std::vector<std::string> argv = plan::PpdSetActionArgv(enabled);
    if (std::equal(args.begin(), args.end(), argv.begin() + 1, argv.end())) return {};
  }
  return Refuse(rule::kRegenArgv, "busctl runs only as power-profiles-daemon's SetActionEnabled for amdgpu_dpm");
}

// The arguments each regenerator (plan/regenerator.cc) runs with: fixed, or a check's shapes.
struct ArgsRule {
  plan::Regenerator id;
  std::vector<std::string_view> fixed;  // the only arguments, unless `check` decides
  Result<void> (*check)(Args) = nullptr;
};

const std::vector<ArgsRule>& ArgsRules() {
  using R = plan::Regenerator;
  static const std::vector<ArgsRule> kTable = {
      {R::kUpdateGrub, {}},
      {R::kGrubMkconfig, {}, GrubMkconfigArgs},
      {R::kGrub2Mkconfig, {}, GrubMkconfigArgs},
      {R::kGrubby, {}, GrubbyArgs},
      {R::kKernelInstall, {"add-all"}},
      {R::kInitramfsTools, {"-u", "-k", "all"}},
      {R::kDracut, {"--force", "--regenerate-all"}},
      {R::kMkinitcpio, {"-P"}},
      {R::kBooster, {"build", "--force"}},
      {R::kGrubEditenv, {}, GrubEditenvArgs},  // trial boots: trial_boot_rules.cc
      {R::kGrub2Editenv, {}, Grub2EditenvArgs},
      {R::kBootctl, {}, BootctlArgs},
      {R::kSystemctl, {}, SystemctlArgs},
      {R::kBusctl, {}, BusctlArgs},
      {R::kRpmOstreeKargs, {}, RpmOstreeKargsArgs},  // ostree_rules.cc
      {R::kRpmOstreeInitramfsEtc, {}, RpmOstreeInitramfsEtcArgs},
      {R::kKernelstub, {}, KernelstubArgs},
  };
  return kTable;
}

Result<void> CheckArgs(const plan::RegeneratorRow& r, Args args) {
  auto rule = std::find_if(ArgsRules().begin(), ArgsRules().end(), [&](const ArgsRule& a) { return a.id == r.id; });
  if (rule == ArgsRules().end())
    return Refuse(rule::kRegenProgram, fmt::format("the helper has no rule for {}", r.name));
  if (rule->check) return rule->check(args);
  if (std::equal(args.begin(), args.end(), rule->fixed.begin(), rule->fixed.end())) return {};
  std::string expected;
  for (std::string_view a : rule->fixed) expected += fmt::format(" {}", a);
  return Refuse(rule::kRegenArgv, fmt::format("{} runs only as `{}{}`", r.program, r.program, expected));
}

}  // namespace

Result<void> CheckRegenerateOp(const plan::Op& op) {
  if (op.backend != plan::BackendId::kBootloader && op.backend != plan::BackendId::kInitramfs &&
      op.backend != plan::BackendId::kService)
    return Refuse(rule::kBackendMismatch, "regenerators belong to the bootloader, initramfs or service backend");
  if (op.after) return Refuse(rule::kOpShape, "a regenerator has no file content");
  if (op.argv.empty()) return Refuse(rule::kRegenProgram, "no command");
  // bootc's op alone carries `before`: the options it replaces, which its undo sets again.
  if (op.before && op.argv[0] != plan::Row(plan::Regenerator::kBootc).program)
    return Refuse(rule::kOpShape, "a regenerator has no file content");
  const std::string& program = op.argv[0];
  if (program.find('/') != std::string::npos)
    return Refuse(rule::kRegenProgram, "argv[0] must be a bare program name (the helper's PATH finds it)");
  // The row of this program and the op's name (rpm-ostree has two: kargs, initramfs-etc), else
  // the program's first row, whose name and backend the op must then have.
  const plan::RegeneratorRow* row = nullptr;
  for (const plan::RegeneratorRow& r : plan::Regenerators())
    if (program == r.program && (op.path == r.name || !row)) row = &r;
  if (row) {
    const plan::RegeneratorRow& r = *row;
    if (op.backend != r.backend)
      return Refuse(rule::kBackendMismatch,
                    fmt::format("{} belongs to the {} backend", r.program, plan::Name(r.backend)));
    if (op.path != r.name) return Refuse(rule::kOpShape, fmt::format("{} is named '{}' in a plan", r.program, r.name));
    if (r.id == plan::Regenerator::kBootc) return BootcOp(op);  // ostree_rules.cc
    return CheckArgs(r, Args(op.argv).subspan(1));
  }
  return Refuse(rule::kRegenProgram, fmt::format("'{}' is not a regenerator rocmtune runs", program));
}

}  // namespace rocmtune::helper
