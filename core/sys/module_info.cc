#include "sys/module_info.h"

#include <fcntl.h>

#include <fmt/format.h>
#include <libkmod.h>

#include "sys/unique_fd.h"
#include "util/handle.h"
#include "util/text.h"

namespace rocmtune::sys {
namespace {

constexpr size_t kMaxModulesDep = 16 << 20;  // real ones are well under 1 MiB

using KmodCtx = Handle<kmod_ctx*, kmod_unref>;
using KmodModule = Handle<kmod_module*, kmod_module_unref>;
using KmodInfo = Handle<kmod_list*, kmod_module_info_free_list>;

// "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst" names module "amdgpu" (libkmod: '-' == '_').
bool NamesModule(std::string_view path, std::string_view module) {
  std::string_view base = path.substr(path.rfind('/') + 1);
  size_t ko = base.find(".ko");
  if (ko == std::string_view::npos || ko != module.size()) return false;
  for (size_t i = 0; i < ko; ++i) {
    char a = base[i] == '-' ? '_' : base[i], b = module[i] == '-' ? '_' : module[i];
    if (a != b) return false;
  }
  return ko + 3 == base.size() || base[ko + 3] == '.';
}

}  // namespace

Result<ModuleParams> InstalledModuleParams(const Root& root, std::string_view release, std::string_view module) {
  if (release.empty() || release.find('/') != std::string_view::npos || release == "." || release == "..")
    return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a kernel release", release));
  const std::string dir = JoinPath("lib/modules", release);
  auto dep = root.ReadFile(JoinPath(dir, "modules.dep"), kMaxModulesDep);
  if (!dep) return tl::unexpected(dep.error());
  std::string file;
  for (std::string_view line : text::SplitLines(*dep)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view path = text::Trim(line.substr(0, colon));
    if (!NamesModule(path, module)) continue;
    file = path.starts_with('/') ? std::string(path.substr(1)) : JoinPath(dir, path);
    break;
  }
  if (file.empty())
    return Fail(ErrorCode::kNotFound,
                fmt::format("{} lists no module {}", root.Display(JoinPath(dir, "modules.dep")), module));
  auto fd = root.Open(file, O_RDONLY | O_CLOEXEC);
  if (!fd) return tl::unexpected(fd.error());

  // No configuration of the host: only the module file is read.
  const char* no_config[] = {nullptr};
  KmodCtx ctx(kmod_new(nullptr, no_config));
  if (!ctx) return Fail(ErrorCode::kIo, "libkmod: kmod_new failed");
  kmod_module* raw = nullptr;
  std::string proc = fmt::format("/proc/self/fd/{}", fd->get());
  if (int err = kmod_module_new_from_path(ctx.get(), proc.c_str(), &raw); err < 0 || !raw)
    return Fail(ErrorCode::kIo, fmt::format("libkmod cannot open {}: error {}", root.Display(file), -err));
  KmodModule mod(raw);
  kmod_list* list = nullptr;
  if (int n = kmod_module_get_info(mod.get(), &list); n < 0)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("libkmod cannot read the modinfo of {}: error {}", root.Display(file), -n));
  KmodInfo info(list);
  ModuleParams out{file, {}};
  for (kmod_list* e = list; e; e = kmod_list_next(list, e)) {
    std::string_view key = kmod_module_info_get_key(e);
    const char* value = kmod_module_info_get_value(e);
    if ((key != "parm" && key != "parmtype") || !value) continue;
    std::string_view v = value;
    out.names.insert(std::string(v.substr(0, v.find(':'))));
  }
  return out;
}

}  // namespace rocmtune::sys
