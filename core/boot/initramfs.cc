#include "boot/initramfs.h"

#include <fmt/format.h>

#include "boot/ostree_setups.h"
#include "util/text.h"

namespace rocmtune::boot {
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

std::optional<InitramfsTool> FindInitramfsTool(const BootContext& ctx) {
  const auto& kind = ctx.inventory.system.boot.initramfs;
  if (!kind) return std::nullopt;
  const detect::InitramfsToolRow& row = detect::Row(*kind);
  InitramfsTool tool;
  tool.regenerator = row.regenerator;
  tool.tracks_etc_files = row.tracks_etc_files;
  tool.argv = {std::string(plan::Row(row.regenerator).program)};
  for (std::string_view arg : row.args)
    if (!arg.empty()) tool.argv.emplace_back(arg);
  for (const detect::AmdgpuProof& proof : row.proofs) {
    if (proof.file.empty() || !FileMentions(ctx.root, proof.file, proof.word)) continue;
    tool.has_amdgpu = true;
    tool.evidence = std::string(proof.evidence);
    break;
  }
  return tool;
}

void AddInitramfsRegeneration(const BootContext& ctx, plan::Plan& plan) {
  for (const plan::Op& op : plan.ops)
    if (op.kind == plan::OpKind::kRegenerate && op.backend == plan::BackendId::kInitramfs) return;  // once per plan
  auto tool = FindInitramfsTool(ctx);
  if (!tool) {
    plan.warnings.push_back({"", "no initramfs tool found: if amdgpu loads from an initramfs, rebuild it by hand", ""});
    return;
  }
  if (tool->has_amdgpu == false) return;
  if (tool->tracks_etc_files) return AddRpmOstreeInitramfsEtc(ctx, plan);
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

}  // namespace rocmtune::boot
