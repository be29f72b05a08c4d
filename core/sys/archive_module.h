// rocmtune-archive.so, the one module that links libarchive (snapshot/tar_gz.h writes a snapshot's
// tar.gz with it, sys/initrd_abi.h reads initramfs images): loaded with dlopen when one of them is
// needed, so no program's start loads libarchive and what it brings (ctest client.needed_libraries).
#pragma once

#include <string>
#include <string_view>

#include "util/handle.h"
#include "util/result.h"

namespace rocmtune::sys {

class ArchiveModule {
 public:
  // kIo naming the module when it cannot be loaded.
  static Result<ArchiveModule> Load();
  // The module's function `name` (kIo when it has none).
  Result<void*> Symbol(const char* name) const;
  const std::string& path() const { return path_; }

 private:
  static int Close(void* handle);
  using Library = Handle<void*, Close>;
  ArchiveModule(std::string path, Library lib) : path_(std::move(path)), lib_(std::move(lib)) {}
  std::string path_;
  Library lib_;
};

// The build tree's module for a program running from the build tree (the tests, rocmtunectl
// before `make install`), the installed one otherwise.
std::string ArchiveModulePath();

}  // namespace rocmtune::sys
