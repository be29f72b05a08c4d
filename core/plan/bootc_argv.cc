#include "plan/bootc_argv.h"

#include <iterator>

namespace rocmtune::plan {
namespace {

constexpr std::string_view kVerbs[] = {"loader-entries", "set-options-for-source", "--source", kBootcSource};
constexpr std::string_view kOptions = "--options";

}  // namespace

std::vector<std::string> BootcSetOptionsArgv(std::string_view options) {
  std::vector<std::string> argv = {std::string(Row(Regenerator::kBootc).program)};
  for (std::string_view v : kVerbs) argv.emplace_back(v);
  if (!options.empty()) {
    argv.emplace_back(kOptions);
    argv.emplace_back(options);
  }
  return argv;
}

std::optional<std::string> BootcArgvOptions(std::span<const std::string> args) {
  constexpr size_t kVerbCount = std::size(kVerbs);
  if (args.size() != kVerbCount && args.size() != kVerbCount + 2) return std::nullopt;
  for (size_t i = 0; i < kVerbCount; ++i)
    if (args[i] != kVerbs[i]) return std::nullopt;
  if (args.size() == kVerbCount) return std::string();
  if (args[kVerbCount] != kOptions || args[kVerbCount + 1].empty()) return std::nullopt;
  return args[kVerbCount + 1];
}

std::optional<Op> InverseBootc(const Op& done) {
  if (done.kind != OpKind::kRegenerate || done.argv.empty() || done.argv[0] != Row(Regenerator::kBootc).program ||
      !done.before)
    return std::nullopt;
  auto options = BootcArgvOptions(std::span(done.argv).subspan(1));
  if (!options) return std::nullopt;
  Op undo = done;
  undo.argv = BootcSetOptionsArgv(*done.before);
  undo.before = *options;
  return undo;
}

}  // namespace rocmtune::plan
