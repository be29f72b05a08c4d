#include "ostree_world.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "rpm_packages.h"
#include "test_tree.h"

namespace fs = std::filesystem;

namespace rocmtune::testing {
namespace {

constexpr const char* kKernel = "6.11.4-301.fc41.x86_64";
constexpr const char* kRefspec = "fedora/41/x86_64/silverblue";
// bootc's origin (ostree-ext container/deploy.rs: [origin] container-image-reference=).
constexpr const char* kBootcImage = "ostree-unverified-registry:quay.io/fedora/fedora-bootc:41";

// Runs argv without a shell; its output goes to `log`, which a failure shows. Deployments are
// left mutable (OSTREE_SYSROOT_DEBUG=mutable-deployments, ostree-sysroot.c): the test's
// scratch tree must be removable without chattr.
void RunOstree(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr || ::dup2(::fileno(stdout), STDERR_FILENO) < 0) ::_exit(126);
    ::setenv("OSTREE_SYSROOT_DEBUG", "mutable-deployments", 1);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::string cmd;
    for (const std::string& a : argv) cmd += " " + a;
    throw std::runtime_error("failed:" + cmd + "\n" + text.str());
  }
}

void WriteOstreeFile(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

std::string ReadOstreeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The `options` line of the entry whose `version` is `version` (ostree writes version N for
// deployment index count - N).
std::string EntryOptions(const fs::path& entries, size_t version) {
  for (const auto& e : fs::directory_iterator(entries)) {
    std::string text = ReadOstreeFile(e.path());
    if (text.find("\nversion " + std::to_string(version) + "\n") == std::string::npos) continue;
    size_t at = text.find("\noptions ");
    if (at == std::string::npos) break;
    size_t end = text.find('\n', at + 1);
    return text.substr(at + 9, end - at - 9);
  }
  throw std::runtime_error("no BLS entry of version " + std::to_string(version) + " in " + entries.string());
}

}  // namespace

std::optional<std::string> OstreeUnavailable() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((fs::path(dir) / "ostree").c_str(), X_OK) == 0) return RpmUnavailable();
  return "the ostree tool is not installed (Debian package ostree, in scripts/install-deps.sh's TEST list)";
}

void MakeOstreeWorld(const std::string& root_dir, const OstreeWorldSpec& spec) {
  if (spec.kargs.empty()) throw std::runtime_error("an ostree world needs a deployment");
  const fs::path root(root_dir), sysroot = root / "sysroot";
  TestTree scratch;
  const fs::path tree = fs::path(scratch.path()) / "tree", log = fs::path(scratch.path()) / "log";
  // The committed tree: a kernel and an initramfs where ostree looks for them
  // (usr/lib/modules/VER/vmlinuz, initramfs.img: ostree-sysroot-deploy.c get_kernel_from_tree),
  // os-release for the entry's title, and /ostree -> sysroot/ostree as Fedora's trees have it.
  WriteOstreeFile(tree / "usr/lib/modules" / kKernel / "vmlinuz", "not a kernel\n");
  WriteOstreeFile(tree / "usr/lib/modules" / kKernel / "initramfs.img", "not an initramfs\n");
  WriteOstreeFile(tree / "usr/lib/os-release",
                  "NAME=\"Fedora Linux\"\nVERSION_ID=41\nID=fedora\nPRETTY_NAME=\"Fedora Linux 41 (Silverblue)\"\n");
  fs::create_directories(tree / "usr/etc");
  fs::create_symlink("../usr/lib/os-release", tree / "usr/etc/os-release");
  fs::create_symlink("sysroot/ostree", tree / "ostree");
  fs::create_directories(sysroot);
  const std::string s = "--sysroot=" + sysroot.string();
  RunOstree({"ostree", "admin", "init-fs", sysroot.string()}, log);
  RunOstree({"ostree", "admin", "os-init", "fedora", s}, log);
  RunOstree({"ostree", "--repo=" + (sysroot / "ostree/repo").string(), "commit", std::string("--branch=") + kRefspec,
             "--tree=dir=" + tree.string(), "--subject=rocmtune test tree"},
            log);
  const fs::path origin = fs::path(scratch.path()) / "origin";
  for (size_t i = 0; i < spec.kargs.size(); ++i) {
    std::string text = spec.bootc ? std::string("[origin]\ncontainer-image-reference=") + kBootcImage + "\n"
                                  : std::string("[origin]\nrefspec=") + kRefspec + "\n";
    if (i + 1 == spec.kargs.size()) text += spec.origin_extra;
    WriteOstreeFile(origin, text);
    std::vector<std::string> argv = {
        "ostree", "admin", "deploy", s, "--os=fedora", "--karg-none", "--origin-file=" + origin.string()};
    for (const std::string& k : spec.kargs[i]) argv.push_back("--karg=" + k);
    argv.push_back(kRefspec);
    RunOstree(argv, log);
  }
  // The booted system's /boot is the boot partition, which is the sysroot's boot/.
  fs::remove_all(root / "boot/loader");
  fs::create_directories(root / "boot");
  for (const auto& e : fs::directory_iterator(sysroot / "boot")) {
    std::string name = e.path().filename().string();
    if (name == "boot") continue;  // ostree's boot -> . compatibility link
    if (e.is_symlink()) fs::copy_symlink(e.path(), root / "boot" / name);
    else CopyTree(e.path().string(), (root / "boot" / name).string());
  }
  fs::create_symlink("sysroot/ostree", root / "ostree");
  WriteOstreeFile(root / "run/ostree-booted", "");
  size_t booted = spec.booted_index.value_or(spec.kargs.size() - 1);
  WriteOstreeFile(root / "proc/cmdline", std::string("BOOT_IMAGE=(hd0,gpt2)/ostree/fedora/vmlinuz-") + kKernel + " " +
                                             EntryOptions(root / "boot/loader/entries", booted + 1) + "\n");
  // What the deployment's /usr has: rpm-ostree on every Fedora Atomic and bootc image, bootc on
  // bootc images. Empty stand-ins: nothing runs them in a tree that is not the live system.
  WriteOstreeFile(root / "usr/bin/rpm-ostree", "");
  if (!spec.bootc) return;
  WriteOstreeFile(root / "usr/bin/bootc", "");
  std::vector<std::string> rpms;
  if (spec.bootc_version)
    rpms.push_back(BuildRpm({"bootc", *spec.bootc_version, "1.fc41", {{"/usr/bin/bootc", ""}}, {}}));
  if (spec.ostree_version)
    rpms.push_back(
        BuildRpm({"ostree-libs",
                  *spec.ostree_version,
                  "1.fc41",
                  {{"/usr/lib64/libostree-1.so.1", "libostree-1.so.1.0.0"}, {"/usr/lib64/libostree-1.so.1.0.0", ""}},
                  {}}));
  if (!rpms.empty()) InstallRpms(root_dir, rpms);
}

}  // namespace rocmtune::testing
