#include "sys/module_info.h"

#include <dlfcn.h>
#include <fcntl.h>

#include <memory>

#include <fmt/format.h>
#include <libkmod.h>

#include "sys/dl_symbol.h"
#include "sys/unique_fd.h"
#include "util/handle.h"
#include "util/text.h"

namespace rocmtune::sys {
namespace {

constexpr size_t kMaxModulesDep = 16 << 20;  // real ones are well under 1 MiB

// libkmod is loaded when a module's parameters are first asked (planning a module option), not
// by every program start: it loads libcrypto, which cost rocmtunectl about 1.5 ms of CPU in each
// process, `status` over the bus included (BENCHMARKS.md "Over the bus").
// The types and signatures come from <libkmod.h>; soname 2 is libkmod's since kmod 1 (2011).
constexpr const char* kLibkmod = "libkmod.so.2";

struct Kmod {
  decltype(&kmod_new) new_ctx = nullptr;
  decltype(&kmod_unref) unref = nullptr;
  decltype(&kmod_module_new_from_path) module_new_from_path = nullptr;
  decltype(&kmod_module_unref) module_unref = nullptr;
  decltype(&kmod_module_get_info) module_get_info = nullptr;
  decltype(&kmod_module_info_free_list) module_info_free_list = nullptr;
  decltype(&kmod_list_next) list_next = nullptr;
  decltype(&kmod_module_info_get_key) module_info_get_key = nullptr;
  decltype(&kmod_module_info_get_value) module_info_get_value = nullptr;
  std::string error;  // why libkmod cannot be used ("" when every function was found)
};

// Loaded once and kept for the process (never dlclose'd: the functions stay valid).
Kmod LoadKmod() {
  Kmod k;
  void* lib = dlopen(kLibkmod, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    k.error = fmt::format("libkmod is not installed ({}: {})", kLibkmod, why ? why : "cannot load");
    return k;
  }
  std::string missing;
  ResolveSymbol(lib, "kmod_new", k.new_ctx, missing);
  ResolveSymbol(lib, "kmod_unref", k.unref, missing);
  ResolveSymbol(lib, "kmod_module_new_from_path", k.module_new_from_path, missing);
  ResolveSymbol(lib, "kmod_module_unref", k.module_unref, missing);
  ResolveSymbol(lib, "kmod_module_get_info", k.module_get_info, missing);
  ResolveSymbol(lib, "kmod_module_info_free_list", k.module_info_free_list, missing);
  ResolveSymbol(lib, "kmod_list_next", k.list_next, missing);
  ResolveSymbol(lib, "kmod_module_info_get_key", k.module_info_get_key, missing);
  ResolveSymbol(lib, "kmod_module_info_get_value", k.module_info_get_value, missing);
  if (!missing.empty()) k.error = fmt::format("{} has no {}", kLibkmod, missing);
  return k;
}

const Kmod& Libkmod() {
  static const Kmod kmod = LoadKmod();
  return kmod;
}

void FreeCtx(kmod_ctx* c) { Libkmod().unref(c); }
void FreeModule(kmod_module* m) { Libkmod().module_unref(m); }
void FreeInfo(kmod_list* l) { Libkmod().module_info_free_list(l); }
using KmodCtx = Handle<kmod_ctx*, FreeCtx>;
using KmodModule = Handle<kmod_module*, FreeModule>;
using KmodInfo = Handle<kmod_list*, FreeInfo>;

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

  const Kmod& kmod = Libkmod();
  if (!kmod.error.empty()) return Fail(ErrorCode::kIo, kmod.error);
  // No configuration of the host: only the module file is read.
  const char* no_config[] = {nullptr};
  KmodCtx ctx(kmod.new_ctx(nullptr, no_config));
  if (!ctx) return Fail(ErrorCode::kIo, "libkmod: kmod_new failed");
  kmod_module* raw = nullptr;
  std::string proc = fmt::format("/proc/self/fd/{}", fd->get());
  if (int err = kmod.module_new_from_path(ctx.get(), proc.c_str(), &raw); err < 0 || !raw)
    return Fail(ErrorCode::kIo, fmt::format("libkmod cannot open {}: error {}", root.Display(file), -err));
  KmodModule mod(raw);
  kmod_list* list = nullptr;
  if (int n = kmod.module_get_info(mod.get(), &list); n < 0)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("libkmod cannot read the modinfo of {}: error {}", root.Display(file), -n));
  KmodInfo info(list);
  ModuleParams out{file, {}};
  for (kmod_list* e = list; e; e = kmod.list_next(list, e)) {
    std::string_view key = kmod.module_info_get_key(e);
    const char* value = kmod.module_info_get_value(e);
    if ((key != "parm" && key != "parmtype") || !value) continue;
    std::string_view v = value;
    out.names.insert(std::string(v.substr(0, v.find(':'))));
  }
  return out;
}

}  // namespace rocmtune::sys
