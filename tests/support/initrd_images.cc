#include "initrd_images.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace rocmtune::testing {
namespace {

namespace fs = std::filesystem;

bool HaveTool(const std::string& tool) {
  return std::system(fmt::format("command -v {} >/dev/null 2>&1", tool).c_str()) == 0;
}

void WriteTree(const fs::path& dir, const std::map<std::string, std::string>& files) {
  for (const auto& [rel, content] : files) {
    fs::path p = dir / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }
}

// cpio as dracut and mkinitramfs run it: newc, owner root, sorted names, appended to `out`.
std::string CpioInto(const fs::path& dir, const std::string& filter, const std::string& out) {
  return fmt::format("cd '{}' && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 {} >> '{}'", dir.string(),
                     filter, out);
}

}  // namespace

std::string AmdgpuModulePath(const std::string& version) {
  return fmt::format("usr/lib/modules/{}/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz", version);
}

std::string MakeInitrdImage(const std::string& out, const InitrdSpec& spec) {
  if (!HaveTool("cpio")) return "cpio is not installed (scripts/install-deps.sh installs it)";
  static const std::map<std::string, std::pair<std::string, std::string>> kCompressors = {
      {"none", {"", ""}},
      {"gzip", {"gzip", "| gzip -n -9"}},
      {"xz", {"xz", "| xz --check=crc32 -T1"}},
      {"zstd", {"zstd", "| zstd -q -19"}},
      {"lz4", {"lz4", "| lz4 -q -9 -l"}},
      {"bzip2", {"bzip2", "| bzip2 -9"}},
  };
  auto comp = kCompressors.find(spec.compress);
  if (comp == kCompressors.end()) throw std::invalid_argument(spec.compress);
  if (!comp->second.first.empty() && !HaveTool(comp->second.first))
    return comp->second.first + " is not installed (scripts/install-deps.sh installs it)";
  fs::path work = fs::path(out).concat(".work");
  fs::remove_all(work);
  fs::create_directories(fs::path(out).parent_path());
  fs::remove(out);
  std::ofstream(out, std::ios::binary).flush();
  std::string command;
  if (spec.early_microcode) {
    for (int i = 0; i < spec.early_archives; ++i) {
      fs::path early = work / fmt::format("early{}", i);
      WriteTree(early, {{"early_cpio", "1\n"},
                        {fmt::format("kernel/x86/microcode/{}", i == 0 ? "AuthenticAMD.bin" : "GenuineIntel.bin"),
                         std::string(3000 + i, '\x5a')}});
      command += CpioInto(early, "", out) + " && ";
    }
  }
  fs::path main = work / "main";
  fs::create_directories(main);
  WriteTree(main, spec.files);
  command += CpioInto(main, comp->second.second, out);
  int status = std::system(command.c_str());
  fs::remove_all(work);
  if (status != 0) throw std::runtime_error("failed: " + command);
  return "";
}

}  // namespace rocmtune::testing
