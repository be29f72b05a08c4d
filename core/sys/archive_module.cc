#include "sys/archive_module.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

namespace rocmtune::sys {

int ArchiveModule::Close(void* handle) { return ::dlclose(handle); }

std::string ArchiveModulePath() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  auto build = std::filesystem::path(ROCMTUNE_BUILD_DIR);
  if (!ec && self.string().starts_with(build.string() + "/") && std::filesystem::exists(ROCMTUNE_BUILD_ARCHIVE_MODULE))
    return ROCMTUNE_BUILD_ARCHIVE_MODULE;
  return ROCMTUNE_INSTALLED_ARCHIVE_MODULE;
}

Result<ArchiveModule> ArchiveModule::Load() {
  std::string path = ArchiveModulePath();
  // RTLD_NODELETE: the module stays mapped after the last handle closes. A daemon reading an
  // initramfs on every status would otherwise map libarchive (and what it brings) again each
  // time, and a fuzz target built with coverage in every object would keep reading the counters
  // of a module that is gone (libFuzzer registers them at dlopen and never forgets them).
  Library lib(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE));
  if (!lib) {
    const char* why = ::dlerror();  // names the module
    return Fail(ErrorCode::kIo, fmt::format("cannot load {}: {}", path, why ? why : "dlopen failed"));
  }
  return ArchiveModule(std::move(path), std::move(lib));
}

Result<void*> ArchiveModule::Symbol(const char* name) const {
  void* symbol = ::dlsym(lib_.get(), name);
  if (!symbol) return Fail(ErrorCode::kIo, fmt::format("{} has no {}", path_, name));
  return symbol;
}

}  // namespace rocmtune::sys
