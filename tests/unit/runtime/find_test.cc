// FindRuntimes: each discovery rule on layouts written as the real ones are
// (tests/support/runtime_layouts.h), the order between them, and what cannot be read.
#include <gtest/gtest.h>

#include "runtime/resolve.h"
#include "runtime/runtime.h"
#include "runtime_layouts.h"
#include "test_tree.h"

namespace rocmtune::runtime {
namespace {

using Targets = std::vector<std::string>;

testing::SystemRocmOptions LinkedTo(std::string target) {
  testing::SystemRocmOptions options;
  options.link_target = std::move(target);
  return options;
}

testing::TorchOptions Torch(std::string python, bool bundled, std::string fatbin, bool venv) {
  testing::TorchOptions options;
  options.python = std::move(python);
  options.bundled_runtime = bundled;
  options.fatbin = std::move(fatbin);
  options.venv = venv;
  return options;
}

std::vector<Runtime> Find(const std::string& root_dir, const Env& env = {}) {
  auto root = sys::Root::Open(root_dir);
  EXPECT_TRUE(root) << root.error().message;
  return FindRuntimes(*root, env);
}

const Code* CodeOf(const Runtime& runtime, std::string_view component) {
  for (const Code& code : runtime.code) {
    if (code.component == component) return &code;
  }
  return nullptr;
}

std::vector<Kind> KindsOf(const std::vector<Runtime>& runtimes) {
  std::vector<Kind> kinds;
  for (const Runtime& runtime : runtimes) kinds.push_back(runtime.kind);
  return kinds;
}

bool Mentions(const std::vector<std::string>& lines, std::string_view text) {
  for (const std::string& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(RuntimeFind, NothingInstalled) {
  testing::TestTree tree;
  tree.Mkdir("usr/bin");
  EXPECT_TRUE(Find(tree.path(), {{"PATH", "/usr/bin"}}).empty());
}

TEST(RuntimeFind, SystemRocmThroughItsAbsoluteLink) {
  testing::TestTree tree;
  testing::InstallSystemRocm(tree.path(), "6.3.1", {"gfx900", "gfx1030", "gfx90a"});
  auto runtimes = Find(tree.path());
  ASSERT_EQ(runtimes.size(), 1u);
  const Runtime& rocm = runtimes[0];
  EXPECT_EQ(rocm.kind, Kind::kSystem);
  EXPECT_EQ(rocm.where, "/opt/rocm-6.3.1");
  EXPECT_EQ(rocm.version, "6.3.1");
  EXPECT_EQ(rocm.hip_version, "6.3.60301");
  EXPECT_NE(rocm.label.find("/opt/rocm -> /opt/rocm-6.3.1"), std::string::npos) << rocm.label;
  EXPECT_TRUE(Mentions(rocm.evidence, "/opt/rocm-6.3.1/.info/version: 6.3.1-48"));
  for (std::string_view component : {"rocblas", "hipblaslt", "miopen"}) {
    const Code* code = CodeOf(rocm, component);
    ASSERT_NE(code, nullptr) << component;
    EXPECT_EQ(code->targets, (Targets{"gfx1030", "gfx900", "gfx90a"})) << component;
    EXPECT_FALSE(code->unread);
  }
  EXPECT_EQ(CodeOf(rocm, "rocblas")->path, "/opt/rocm-6.3.1/lib/rocblas/library");
}

// A program that ships its own ROCm (ollama's <exe>/../lib/ollama/rocm) loads it first, found from
// the program's real path; without the program's path, or for a program without one, nothing.
TEST(RuntimeFind, ProgramBundledRocmComesFirst) {
  testing::TestTree tree;
  testing::InstallSystemRocm(tree.path(), "6.3.1", {"gfx1030"});
  testing::InstallOllama(tree.path(), "usr/local", "6.3.42134", {"gfx1030", "gfx1100"});
  tree.Symlink("usr/bin/ollama", "/usr/local/bin/ollama");
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  auto runtimes = FindRuntimes(*root, {}, "/usr/bin/ollama");
  ASSERT_EQ(KindsOf(runtimes), (std::vector<Kind>{Kind::kBundled, Kind::kSystem}));
  const Runtime& ollama = runtimes[0];
  EXPECT_EQ(ollama.where, "/usr/local/lib/ollama/rocm");
  EXPECT_EQ(ollama.version, "6.3");
  EXPECT_EQ(ollama.hip_version, "6.3.42134");
  EXPECT_EQ(ollama.label, "ollama's bundled ROCm 6.3 (/usr/local/lib/ollama/rocm)");
  EXPECT_TRUE(Mentions(ollama.evidence, "/usr/bin/ollama -> /usr/local/bin/ollama"));
  ASSERT_NE(CodeOf(ollama, "rocblas"), nullptr);
  EXPECT_EQ(CodeOf(ollama, "rocblas")->targets, (Targets{"gfx1030", "gfx1100"}));
  EXPECT_EQ(KindName(ollama.kind), "bundled");
  EXPECT_EQ(KindsOf(FindRuntimes(*root, {})), (std::vector<Kind>{Kind::kSystem}));
  EXPECT_EQ(KindsOf(FindRuntimes(*root, {}, "/opt/rocm/bin/rocminfo")), (std::vector<Kind>{Kind::kSystem}));
  EXPECT_EQ(KindsOf(FindRuntimes(*root, {}, "relative/ollama")), (std::vector<Kind>{Kind::kSystem}));
  EXPECT_EQ(KindsOf(FindRuntimes(*root, {}, "/gone/ollama")), (std::vector<Kind>{Kind::kSystem}));
}

TEST(RuntimeFind, RelativeLinkAndRocmPath) {
  testing::TestTree tree;
  testing::InstallSystemRocm(tree.path(), "6.3.1", {"gfx1100"}, LinkedTo("rocm-6.3.1"));
  testing::InstallSystemRocm(tree.path(), "6.2.4", {"gfx1030"}, LinkedTo("rocm-6.2.4"));
  // /opt/rocm now leads to 6.2.4 (the last written); ROCM_PATH picks 6.3.1 by its real name.
  auto runtimes = Find(tree.path());
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].where, "/opt/rocm-6.2.4");
  runtimes = Find(tree.path(), {{"ROCM_PATH", "/opt/rocm-6.3.1/"}});
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].where, "/opt/rocm-6.3.1");
  EXPECT_EQ(CodeOf(runtimes[0], "rocblas")->targets, Targets{"gfx1100"});
  EXPECT_TRUE(Mentions(runtimes[0].evidence, "ROCM_PATH=/opt/rocm-6.3.1/"));
}

TEST(RuntimeFind, TheRockCoreThroughUpdateAlternatives) {
  testing::TestTree tree;
  testing::InstallTheRockCore(tree.path(), "7.15", {"gfx1100", "gfx1151"});
  auto runtimes = Find(tree.path());
  ASSERT_EQ(runtimes.size(), 1u);
  const Runtime& rocm = runtimes[0];
  EXPECT_EQ(rocm.kind, Kind::kSystem);
  EXPECT_EQ(rocm.where, "/opt/rocm/core-7.15");
  EXPECT_EQ(rocm.version, "7.15.0");
  EXPECT_NE(rocm.label.find("/opt/rocm/core -> /etc/alternatives/core"), std::string::npos) << rocm.label;
  EXPECT_NE(rocm.label.find("/etc/alternatives/core -> /opt/rocm/core-7.15"), std::string::npos) << rocm.label;
  ASSERT_NE(CodeOf(rocm, "kpack"), nullptr);
  EXPECT_EQ(CodeOf(rocm, "kpack")->targets, (Targets{"gfx1100", "gfx1151"}));
  EXPECT_EQ(CodeOf(rocm, "rocblas")->targets, (Targets{"gfx1100", "gfx1151"}));
}

TEST(RuntimeFind, SymlinkLoopsEndWithoutARuntime) {
  testing::TestTree tree;
  tree.Symlink("opt/rocm", "/opt/rocm-a");
  tree.Symlink("opt/rocm-a", "/opt/rocm");
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  auto resolved = ResolveInRoot(*root, "opt/rocm/lib");
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code, ErrorCode::kInvalidData) << resolved.error().message;
  EXPECT_TRUE(Find(tree.path()).empty());
  // A link out of the root stays in it: /../../etc is /etc of the root.
  tree.Symlink("opt/up", "../../../../../../etc");
  auto up = ResolveInRoot(*root, "opt/up");
  EXPECT_FALSE(up);
  tree.Mkdir("etc");
  up = ResolveInRoot(*root, "opt/up");
  ASSERT_TRUE(up) << up.error().message;
  EXPECT_EQ(up->rel, "etc");
}

TEST(RuntimeFind, TorchWheelInAVirtualEnvironment) {
  testing::TestTree tree;
  testing::InstallTorchVenv(tree.path(), "home/u/venv", "2.5.1+rocm6.2", "6.2.41133-dd7f95766",
                            {"gfx900", "gfx906", "gfx1030"});
  auto runtimes = Find(tree.path(), {{"VIRTUAL_ENV", "/home/u/venv"}, {"PATH", "/home/u/venv/bin:/usr/bin"}});
  ASSERT_EQ(runtimes.size(), 1u);
  const Runtime& torch = runtimes[0];
  EXPECT_EQ(torch.kind, Kind::kTorch);
  EXPECT_EQ(torch.where, "/home/u/venv/lib/python3.11/site-packages/torch");
  EXPECT_EQ(torch.version, "6.2");
  EXPECT_EQ(torch.hip_version, "6.2.41133-dd7f95766");
  EXPECT_EQ(torch.package, "torch 2.5.1+rocm6.2");
  EXPECT_EQ(torch.python, "venv /home/u/venv (VIRTUAL_ENV)");
  EXPECT_NE(torch.label.find("bundled"), std::string::npos) << torch.label;
  const Code* kernels = CodeOf(torch, "torch");
  ASSERT_NE(kernels, nullptr);
  EXPECT_EQ(kernels->path, "/home/u/venv/lib/python3.11/site-packages/torch/lib/libtorch_hip.so");
  EXPECT_EQ(kernels->targets, (Targets{"gfx1030", "gfx900", "gfx906"})) << kernels->unread.value_or("");
  EXPECT_EQ(CodeOf(torch, "rocblas")->path, "/home/u/venv/lib/python3.11/site-packages/torch/lib/rocblas/library");
  EXPECT_EQ(CodeOf(torch, "rocblas")->targets, (Targets{"gfx1030", "gfx900", "gfx906"}));
  EXPECT_EQ(CodeOf(torch, "miopen")->path, "/home/u/venv/lib/python3.11/site-packages/torch/share/miopen/db");
  EXPECT_EQ(CodeOf(torch, "miopen")->targets, (Targets{"gfx1030", "gfx900", "gfx906"}));
}

TEST(RuntimeFind, VirtualEnvironmentFoundThroughPath) {
  testing::TestTree tree;
  testing::InstallTorchVenv(tree.path(), "srv/app/.venv", "2.4.1+rocm6.1", "6.1.40091-a8dbc0c19", {"gfx1100"},
                            Torch("python3.12", true, "libgfx1010_gfx1031.so", true));
  auto runtimes = Find(tree.path(), {{"PATH", "/usr/local/bin:/srv/app/.venv/bin:/usr/bin"}});
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].python, "venv /srv/app/.venv (python3 on PATH)");
  EXPECT_EQ(runtimes[0].version, "6.1");
  EXPECT_EQ(CodeOf(runtimes[0], "torch")->targets, (Targets{"gfx1010", "gfx1031"}));
}

// `python -m venv --system-site-packages`: pyvenv.cfg's include-system-site-packages = true lets
// the venv import the base interpreter's packages (after its own, the user site first); false or
// missing keeps them out.
TEST(RuntimeFind, VenvWithSystemSitePackagesSeesTheSystemsTorch) {
  testing::TestTree tree;
  tree.Write("usr/bin/python3.11", "");
  testing::InstallTorchVenv(tree.path(), "usr/local", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", {"gfx1030"},
                            Torch("python3.11", true, "libtorch_hip.so", false));
  tree.Write("home/u/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
  tree.Mkdir("home/u/venv/lib/python3.11/site-packages");
  const Env env = {{"VIRTUAL_ENV", "/home/u/venv"}, {"HOME", "/home/u"}};
  EXPECT_TRUE(Find(tree.path(), env).empty());
  tree.Write("home/u/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = True\nversion = 3.11.2\n");
  auto runtimes = Find(tree.path(), env);
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].package, "torch 2.5.1+rocm6.2");
  EXPECT_EQ(runtimes[0].where, "/usr/local/lib/python3.11/site-packages/torch");
  // The venv's own torch shadows the system's.
  testing::InstallTorchVenv(tree.path(), "home/u/venv", "2.4.1+rocm6.1", "6.1.40091-a8dbc0c19", {"gfx1100"},
                            Torch("python3.11", true, "libtorch_hip.so", false));
  runtimes = Find(tree.path(), env);
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].package, "torch 2.4.1+rocm6.1");
}

TEST(RuntimeFind, TorchWithoutRocmIsNoRuntime) {
  testing::TestTree tree;
  testing::InstallTorchVenv(tree.path(), "home/u/venv", "2.5.1+cu124", std::nullopt, {},
                            Torch("python3.11", false, "", true));
  EXPECT_TRUE(Find(tree.path(), {{"VIRTUAL_ENV", "/home/u/venv"}}).empty());
}

TEST(RuntimeFind, TheRockTorchLoadsTheRockWheelsBelowIt) {
  testing::TestTree tree;
  std::string site = testing::InstallTorchVenv(tree.path(), "home/u/venv", "2.9.0+rocm7.10.0", "7.1.25424", {},
                                               Torch("python3.11", false, "libtorch_hip.so", true));
  testing::InstallTheRockWheels(tree.path(), site, "7.10.0", {"gfx1100", "gfx1101"});
  testing::InstallSystemRocm(tree.path(), "6.4.1", {"gfx1030"});
  auto runtimes = Find(tree.path(), {{"VIRTUAL_ENV", "/home/u/venv"}});
  ASSERT_EQ(KindsOf(runtimes), (std::vector<Kind>{Kind::kTorch, Kind::kTheRock, Kind::kSystem}));
  EXPECT_NE(runtimes[0].label.find("without a bundled HIP runtime"), std::string::npos) << runtimes[0].label;
  EXPECT_EQ(CodeOf(runtimes[0], "rocblas"), nullptr);
  const Runtime& therock = runtimes[1];
  EXPECT_EQ(therock.where, "/home/u/venv/lib/python3.11/site-packages/_rocm_sdk_core");
  EXPECT_EQ(therock.version, "7.10.0");
  EXPECT_EQ(therock.package, "rocm 7.10.0 (rocm-sdk)");
  EXPECT_EQ(therock.hip_version, "7.1.25424");
  EXPECT_EQ(therock.python, "venv /home/u/venv (VIRTUAL_ENV)");
  ASSERT_NE(CodeOf(therock, "rocblas"), nullptr);
  EXPECT_EQ(CodeOf(therock, "rocblas")->path,
            "/home/u/venv/lib/python3.11/site-packages/_rocm_sdk_libraries/lib/rocblas/library");
  EXPECT_EQ(CodeOf(therock, "rocblas")->targets, (Targets{"gfx1100", "gfx1101"}));
  ASSERT_NE(CodeOf(therock, "kpack"), nullptr);
  EXPECT_EQ(CodeOf(therock, "kpack")->targets, (Targets{"gfx1100", "gfx1101"}));
}

TEST(RuntimeFind, TheRockPerFamilyLibrariesWheel) {
  testing::TestTree tree;
  std::string site = "opt/conda/envs/ml/lib/python3.12/site-packages";
  testing::InstallTheRockWheels(tree.path(), site, "7.9.0rc20251008", {"gfx1100", "gfx1101", "gfx1102"},
                                "gfx110X_dgpu");
  auto runtimes = Find(tree.path(), {{"CONDA_PREFIX", "/opt/conda/envs/ml"}});
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].kind, Kind::kTheRock);
  EXPECT_EQ(runtimes[0].python, "conda environment /opt/conda/envs/ml (CONDA_PREFIX)");
  EXPECT_EQ(runtimes[0].version, "7.9.0rc20251008");
  const Code* rocblas = CodeOf(runtimes[0], "rocblas");
  ASSERT_NE(rocblas, nullptr);
  EXPECT_NE(rocblas->path.find("_rocm_sdk_libraries_gfx110X_dgpu/lib/rocblas/library"), std::string::npos);
  EXPECT_EQ(rocblas->targets, (Targets{"gfx1100", "gfx1101", "gfx1102"}));
}

TEST(RuntimeFind, UserSiteBeforeTheSystemsAndTheFirstTorchWins) {
  testing::TestTree tree;
  tree.Write("usr/bin/python3.11", "");
  tree.Symlink("usr/bin/python3", "python3.11");
  // pip install --user: ~/.local/lib/python3.11/site-packages; Debian's python3-torch in
  // /usr/lib/python3/dist-packages is shadowed by it.
  testing::InstallTorchVenv(tree.path(), "home/u/.local", "2.3.1+rocm6.0", "6.0.32830-d62f6a171", {"gfx1030"},
                            Torch("python3.11", true, "libtorch_hip.so", false));
  testing::InstallTorchVenv(tree.path(), "usr/lib/python3/../..", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", {"gfx1030"},
                            Torch("python3.11", true, "libtorch_hip.so", false));
  auto runtimes = Find(tree.path(), {{"PATH", "/usr/bin"}, {"HOME", "/home/u"}});
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].package, "torch 2.3.1+rocm6.0");
  EXPECT_EQ(runtimes[0].python, "/usr/bin/python3 (python3 on PATH)");
  // Without the user's: the system's, from /usr/lib/python3.11/site-packages.
  runtimes = Find(tree.path(), {{"PATH", "/usr/bin"}});
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].package, "torch 2.5.1+rocm6.2");
}

TEST(RuntimeFind, LibraryPathBeforeTheSystemAndOncePerPrefix) {
  testing::TestTree tree;
  testing::InstallSystemRocm(tree.path(), "6.3.1", {"gfx1030"});
  testing::InstallSystemRocm(tree.path(), "6.2.4", {"gfx906"}, LinkedTo("/opt/rocm-6.3.1"));
  tree.Write("opt/custom/lib/libamdhip64.so.6.1.40093", "");
  tree.Mkdir("opt/no-hip/lib");
  auto runtimes =
      Find(tree.path(), {{"LD_LIBRARY_PATH", ":/opt/no-hip/lib:/opt/custom/lib:/opt/rocm-6.2.4/lib:/opt/rocm/lib"}});
  ASSERT_EQ(runtimes.size(), 3u);
  EXPECT_EQ(runtimes[0].kind, Kind::kPath);
  EXPECT_EQ(runtimes[0].where, "/opt/custom");
  EXPECT_EQ(runtimes[0].hip_version, "6.1.40093");
  EXPECT_EQ(runtimes[1].kind, Kind::kSystem);  // AMD's, by its .info/version
  EXPECT_EQ(runtimes[1].where, "/opt/rocm-6.2.4");
  EXPECT_EQ(runtimes[2].where, "/opt/rocm-6.3.1");  // LD_LIBRARY_PATH's /opt/rocm/lib: the same as /opt/rocm
  EXPECT_TRUE(Mentions(runtimes[2].evidence, "LD_LIBRARY_PATH has /opt/rocm/lib"));
}

TEST(RuntimeFind, DebianDistributionPackages) {
  testing::TestTree tree;
  testing::InstallDistroRocblas(tree.path(), "5.3.3", "5.2.3-8", {"gfx803", "gfx900", "gfx1030", "gfx1031"});
  auto runtimes = Find(tree.path());
  ASSERT_EQ(runtimes.size(), 1u);
  const Runtime& distro = runtimes[0];
  EXPECT_EQ(distro.kind, Kind::kDistro);
  EXPECT_EQ(distro.where, "/usr");
  EXPECT_EQ(distro.package, "libamdhip64-5 5.2.3-8");
  EXPECT_EQ(distro.version, "5.2.3");
  EXPECT_EQ(distro.hip_version, "5.2.21153");
  EXPECT_TRUE(Mentions(distro.evidence, "librocblas0 5.3.3-1"));
  const Code* rocblas = CodeOf(distro, "rocblas");
  ASSERT_NE(rocblas, nullptr);
  EXPECT_EQ(rocblas->path, "/usr/lib/x86_64-linux-gnu/rocblas/5.3.3/library");
  EXPECT_EQ(rocblas->targets, (Targets{"gfx1030", "gfx1031", "gfx803", "gfx900"}));
}

TEST(RuntimeFind, FedoraDistributionPackages) {
  testing::TestTree tree;
  testing::InstallDistroRocblas(tree.path(), "6.3.1", "6.3.1", {"gfx1100", "gfx1103"}, /*fedora=*/true);
  auto runtimes = Find(tree.path());
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(runtimes[0].kind, Kind::kDistro);
  EXPECT_EQ(runtimes[0].package, std::nullopt);  // no rpm database here (rpmdb_test.cc has them)
  EXPECT_EQ(CodeOf(runtimes[0], "rocblas")->path, "/usr/lib64/rocblas/library");
  EXPECT_EQ(CodeOf(runtimes[0], "rocblas")->targets, (Targets{"gfx1100", "gfx1103"}));
}

TEST(RuntimeFind, EverythingInDiscoveryOrder) {
  testing::TestTree tree;
  testing::InstallTorchVenv(tree.path(), "home/u/venv", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", {"gfx1030"});
  tree.Write("opt/custom/lib/libamdhip64.so.6.1.40093", "");
  testing::InstallSystemRocm(tree.path(), "6.3.1", {"gfx1030"});
  testing::InstallDistroRocblas(tree.path(), "5.3.3", "5.2.3-8", {"gfx1030"});
  auto runtimes = Find(tree.path(), {{"VIRTUAL_ENV", "/home/u/venv"}, {"LD_LIBRARY_PATH", "/opt/custom/lib"}});
  EXPECT_EQ(KindsOf(runtimes), (std::vector<Kind>{Kind::kTorch, Kind::kPath, Kind::kSystem, Kind::kDistro}));
}

TEST(RuntimeFind, WhatCannotBeReadSaysWhy) {
  testing::TestTree tree;
  testing::SystemRocmOptions no_hipblaslt;
  no_hipblaslt.hipblaslt = false;
  testing::InstallSystemRocm(tree.path(), "6.3.1", {"gfx1030"}, no_hipblaslt);
  tree.Write("opt/rocm-6.3.1/lib/hipblaslt/library", "a file where a directory should be");
  testing::InstallTorchVenv(tree.path(), "home/u/venv", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", {"gfx1030"},
                            Torch("python3.11", true, "", true));
  tree.Write("home/u/venv/lib/python3.11/site-packages/torch/lib/libtorch_hip.so", "not an ELF file");
  auto runtimes = Find(tree.path(), {{"VIRTUAL_ENV", "/home/u/venv"}});
  ASSERT_EQ(runtimes.size(), 2u);
  const Code* kernels = CodeOf(runtimes[0], "torch");
  ASSERT_NE(kernels, nullptr);
  ASSERT_TRUE(kernels->unread);
  EXPECT_NE(kernels->unread->find("is not an ELF file"), std::string::npos) << *kernels->unread;
  EXPECT_TRUE(kernels->targets.empty());
  const Code* hipblaslt = CodeOf(runtimes[1], "hipblaslt");
  ASSERT_NE(hipblaslt, nullptr);
  ASSERT_TRUE(hipblaslt->unread);
  EXPECT_NE(hipblaslt->unread->find("hipblaslt/library"), std::string::npos) << *hipblaslt->unread;
}

TEST(RuntimeFind, AWorldCopyGetsARuntime) {
  testing::WorldCopy w("rx6600");
  testing::InstallSystemRocm(w, "6.3.1", {"gfx1030", "gfx1032"});
  auto runtimes = Find(w.root());
  ASSERT_EQ(runtimes.size(), 1u);
  EXPECT_EQ(CodeOf(runtimes[0], "rocblas")->targets, (Targets{"gfx1030", "gfx1032"}));
}

}  // namespace
}  // namespace rocmtune::runtime
