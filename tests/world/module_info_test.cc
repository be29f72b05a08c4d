// A module parameter missing from /sys/module/<m>/parameters is no proof the kernel lacks it:
// one declared with permission 0 never appears there (kernel/params.c). The installed module's
// modinfo, read through libkmod, decides.
#include "sys/module_info.h"

#include <elf.h>

#include <cstring>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "client/exit_codes.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace rocmtune::client {
namespace {

using testing::WorldCopy;

constexpr const char* kRelease = "6.11.5-arch1-1";  // rx6900xt's running kernel
constexpr const char* kModuleRel = "lib/modules/6.11.5-arch1-1/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko";

// The smallest relocatable ELF64 libkmod reads modinfo from: a .modinfo section of NUL-separated
// "key=value" strings (as modpost writes them) and the section-name table.
std::string FakeModule(const std::string& modinfo) {
  const std::string shstrtab("\0.modinfo\0.shstrtab\0", 20);
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 2;
  const size_t modinfo_at = sizeof(Elf64_Ehdr);
  const size_t shstrtab_at = modinfo_at + modinfo.size();
  size_t shoff = shstrtab_at + shstrtab.size();
  shoff = (shoff + 7) & ~size_t{7};
  eh.e_shoff = shoff;
  Elf64_Shdr sh[3]{};
  sh[1].sh_name = 1;
  sh[1].sh_type = SHT_PROGBITS;
  sh[1].sh_flags = SHF_ALLOC;
  sh[1].sh_offset = modinfo_at;
  sh[1].sh_size = modinfo.size();
  sh[1].sh_addralign = 1;
  sh[2].sh_name = 10;
  sh[2].sh_type = SHT_STRTAB;
  sh[2].sh_offset = shstrtab_at;
  sh[2].sh_size = shstrtab.size();
  sh[2].sh_addralign = 1;
  std::string out(reinterpret_cast<const char*>(&eh), sizeof eh);
  out += modinfo;
  out += shstrtab;
  out.resize(shoff, '\0');
  out.append(reinterpret_cast<const char*>(sh), sizeof sh);
  return out;
}

// One modinfo string with its terminating NUL.
std::string Z(std::string_view entry) { return std::string(entry) + '\0'; }

std::string Modinfo(bool with_lockup_timeout) {
  std::string m =
      Z("license=GPL and additional rights") + Z("parm=noretry:Disable retry faults") + Z("parmtype=noretry:int");
  if (with_lockup_timeout) m += Z("parm=lockup_timeout:GPU lockup timeout in ms") + Z("parmtype=lockup_timeout:string");
  return m + Z("name=amdgpu");
}

// lockup_timeout hidden from sysfs, as a permission-0 parameter would be.
void HideFromSysfs(const WorldCopy& w) {
  ASSERT_TRUE(std::filesystem::remove(w.Path("sys/module/amdgpu/parameters/lockup_timeout")));
}

void InstallModule(const WorldCopy& w, bool with_lockup_timeout) {
  w.Write("lib/modules/6.11.5-arch1-1/modules.dep",
          "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko: kernel/drivers/gpu/drm/drm_buddy.ko\n"
          "kernel/drivers/gpu/drm/drm_buddy.ko:\n");
  w.Write(kModuleRel, FakeModule(Modinfo(with_lockup_timeout)));
}

TEST(ModuleInfoTest, LibkmodReadsTheParametersOfTheInstalledModule) {
  WorldCopy w("rx6900xt");
  HideFromSysfs(w);
  InstallModule(w, true);
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  auto params = sys::InstalledModuleParams(*root, kRelease, "amdgpu");
  ASSERT_TRUE(params) << params.error().message;
  EXPECT_EQ(params->file, kModuleRel);
  EXPECT_THAT(params->names, ::testing::ElementsAre("lockup_timeout", "noretry"));
  auto none = sys::InstalledModuleParams(*root, kRelease, "radeon");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(sys::InstalledModuleParams(*root, "../../etc", "amdgpu"));
}

TEST(ModuleInfoTest, ParameterTheInstalledModuleDeclaresIsAccepted) {
  WorldCopy w("rx6900xt");
  HideFromSysfs(w);
  InstallModule(w, true);
  auto r = w.Ctl({"set", "amdgpu.lockup_timeout=10000", "--check"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("has no amdgpu.lockup_timeout")));
  EXPECT_THAT(r.out, Not(HasSubstr("could not be asked")));
}

TEST(ModuleInfoTest, ParameterTheInstalledModuleLacksIsRefused) {
  WorldCopy w("rx6900xt");
  HideFromSysfs(w);
  InstallModule(w, false);
  auto r = w.Ctl({"set", "amdgpu.lockup_timeout=10000", "--check"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("does not declare it"));
}

TEST(ModuleInfoTest, WithoutTheModuleFileSysfsAloneIsNoProof) {
  WorldCopy w("rx6900xt");
  HideFromSysfs(w);
  auto r = w.Ctl({"set", "amdgpu.lockup_timeout=10000", "--check"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("no proof"));
}

}  // namespace
}  // namespace rocmtune::client
