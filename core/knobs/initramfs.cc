#include "knobs/initramfs.h"

#include <fmt/format.h>

#include "knobs/ostree_setups.h"
#include "util/text.h"

namespace rocmtune::knobs {
namespace {

bool FileMentions(const sys::Root& root, std::string_view path, std::string_view word) {
  auto content = root.ReadFile(path, 1 << 20);
  if (!content) return false;
  for (std::string_view line : text::SplitLines(*content)) {
    line = text::Trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.find(word) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

std::optional<InitramfsTool> FindInitramfsTool(const KnobContext& ctx) {
  const auto& kind = ctx.inventory.system.boot.initramfs;
  // detect/boot_setup.cc names the tool as the regenerator table does.
  auto regenerator = kind ? plan::ParseRegenerator(*kind) : std::nullopt;
  if (!regenerator || plan::Row(*regenerator).backend != plan::BackendId::kInitramfs) return std::nullopt;
  InitramfsTool tool;
  tool.regenerator = *regenerator;
  tool.argv = {std::string(plan::Row(*regenerator).program)};
  switch (*regenerator) {
    case plan::Regenerator::kInitramfsTools:
      tool.argv.insert(tool.argv.end(), {"-u", "-k", "all"});
      // MODULES=most/dep may pull amdgpu in (early KMS, plymouth); only an explicit list is proof.
      if (FileMentions(ctx.root, "etc/initramfs-tools/modules", "amdgpu")) {
        tool.has_amdgpu = true;
        tool.evidence = "etc/initramfs-tools/modules lists amdgpu";
      }
      break;
    case plan::Regenerator::kDracut: tool.argv.insert(tool.argv.end(), {"--force", "--regenerate-all"}); break;
    case plan::Regenerator::kMkinitcpio:
      tool.argv.push_back("-P");
      if (FileMentions(ctx.root, "etc/mkinitcpio.conf", "amdgpu")) {
        tool.has_amdgpu = true;
        tool.evidence = "etc/mkinitcpio.conf MODULES has amdgpu";
      } else if (FileMentions(ctx.root, "etc/mkinitcpio.conf", "kms")) {
        tool.has_amdgpu = true;
        tool.evidence = "etc/mkinitcpio.conf HOOKS has kms (GPU drivers in the image)";
      }
      break;
    case plan::Regenerator::kBooster: tool.argv.insert(tool.argv.end(), {"build", "--force"}); break;
    // The image's initramfs is built with the image: whether amdgpu loads from it is not known
    // here, so rocmtune's drop-in is carried along (ostree_setups.h).
    case plan::Regenerator::kRpmOstreeInitramfsEtc: tool.argv.insert(tool.argv.end(), {"initramfs-etc"}); break;
    default: break;
  }
  return tool;
}

void AddInitramfsRegeneration(const KnobContext& ctx, plan::Plan& plan) {
  for (const plan::Op& op : plan.ops)
    if (op.kind == plan::OpKind::kRegenerate && op.backend == plan::BackendId::kInitramfs) return;  // once per plan
  auto tool = FindInitramfsTool(ctx);
  if (!tool) {
    plan.warnings.push_back({"", "no initramfs tool found: if amdgpu loads from an initramfs, rebuild it by hand", ""});
    return;
  }
  if (tool->has_amdgpu == false) return;
  if (tool->regenerator == plan::Regenerator::kRpmOstreeInitramfsEtc) return AddRpmOstreeInitramfsEtc(ctx, plan);
  plan::Op op;
  op.kind = plan::OpKind::kRegenerate;
  op.backend = plan::BackendId::kInitramfs;
  op.path = std::string(plan::Name(tool->regenerator));
  op.argv = tool->argv;
  op.reason = tool->has_amdgpu ? fmt::format("the image carries amdgpu ({})", tool->evidence)
                               : "the image may carry amdgpu and a copy of modprobe.d";
  plan.ops.push_back(std::move(op));
  plan.initramfs = plan::Regen::kPending;
}

}  // namespace rocmtune::knobs
