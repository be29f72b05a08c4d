#include "sys/staged_deployment.h"

#include <array>
#include <vector>

#include <fmt/format.h>

#include "sys/archive_module.h"
#include "sys/staged_abi.h"

namespace rocmtune::sys {
namespace {

void OnStagedValue(void* ctx, StagedField field, const char* key, const char* value) {
  auto& staged = *static_cast<StagedDeployment*>(ctx);
  std::string v = value ? value : "";
  switch (field) {
    case StagedField::kTargetName: staged.name = std::move(v); break;
    case StagedField::kTargetOsname: staged.osname = std::move(v); break;
    case StagedField::kMergeName: staged.merge_name = std::move(v); break;
    case StagedField::kMergeOsname: staged.merge_osname = std::move(v); break;
    case StagedField::kKargs:
      if (!staged.kargs) staged.kargs.emplace();
      if (value) staged.kargs->push_back(std::move(v));
      break;
    case StagedField::kExtra: staged.bootconfig_extra.insert_or_assign(key ? key : "", std::move(v)); break;
    case StagedField::kLocked: staged.locked = true; break;
  }
}

}  // namespace

std::string StagedDeployment::DeployDir() const { return fmt::format("ostree/deploy/{}/deploy/{}", osname, name); }

Result<StagedDeployment> ParseStagedDeployment(std::string_view bytes, std::string_view path) {
  if (bytes.size() > kMaxStagedBytes)
    return Fail(ErrorCode::kTooLarge,
                fmt::format("{}: {} bytes, more than the {} a staged deployment ostree writes has", path, bytes.size(),
                            kMaxStagedBytes));
  auto module = ArchiveModule::Load();
  if (!module) return Fail(ErrorCode::kIo, fmt::format("{}: {}", path, module.error().message));
  auto symbol = module->Symbol(kReadStagedSymbol);
  if (!symbol) return tl::unexpected(symbol.error());
  auto read = reinterpret_cast<ReadStagedFn>(*symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  StagedDeployment staged;
  StagedVisitor visitor{&staged, OnStagedValue};
  std::array<char, 256> why{};
  switch (read(bytes.data(), bytes.size(), &visitor, why.data(), why.size())) {
    case StagedStatus::kOk: break;
    case StagedStatus::kNoMemory: return Fail(ErrorCode::kIo, fmt::format("{}: GLib: out of memory", path));
    case StagedStatus::kInvalid: return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", path, why.data()));
  }
  // ostree's _ostree_sysroot_parse_deploy_path_name takes CSUM.SERIAL; a name or OS that is not
  // one path component cannot be a deployment of this sysroot.
  std::vector<const std::string*> parts = {&staged.name, &staged.osname};
  if (!staged.merge_name.empty() || !staged.merge_osname.empty())
    parts.insert(parts.end(), {&staged.merge_name, &staged.merge_osname});
  for (const std::string* part : parts)
    if (part->empty() || part->find('/') != std::string::npos || *part == "." || *part == "..")
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: the staged deployment's name or OS '{}' is not a directory name", path, *part));
  return staged;
}

Result<StagedDeployment> ReadStagedDeployment(const Root& root) {
  auto bytes = root.ReadFile(kStagedDeployment, kMaxStagedBytes);
  if (!bytes) return tl::unexpected(bytes.error());
  auto staged = ParseStagedDeployment(*bytes, root.Display(kStagedDeployment));
  if (staged && root.Exists(kStagedDeploymentLocked)) staged->locked = true;
  return staged;
}

}  // namespace rocmtune::sys
