#include "rpm_packages.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace rocmtune::testing {
namespace {

// A temporary directory for this run's packages, removed when the test binary exits.
class RpmWorkDir {
 public:
  RpmWorkDir() {
    std::string tmpl = (fs::temp_directory_path() / "rocmtune-rpms-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~RpmWorkDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

RpmWorkDir& WorkDir() {
  static RpmWorkDir dir;
  return dir;
}

// Runs argv without a shell; its output goes to `log`, which a failure shows.
void Run(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr || ::dup2(::fileno(stdout), STDERR_FILENO) < 0) ::_exit(126);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    throw std::runtime_error(argv[0] + " failed: " + text.str());
  }
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && ::access((fs::path(dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string SpecText(const RpmSpec& spec) {
  std::string text = "Name: " + spec.name + "\nVersion: " + spec.version + "\nRelease: " + spec.release + "\n";
  if (spec.epoch) text += "Epoch: " + std::to_string(*spec.epoch) + "\n";
  text += "Summary: rocmtune test package\nLicense: MIT\nBuildArch: x86_64\n%description\nA test package.\n";
  text += "%install\n";
  for (const RpmFile& file : spec.files) {
    std::string dir = fs::path(file.path).parent_path().string();
    text += "mkdir -p '%{buildroot}" + dir + "'\n";
    if (file.symlink_to.empty()) {
      text += ": > '%{buildroot}" + file.path + "'\n";
    } else {
      text += "ln -s '" + file.symlink_to + "' '%{buildroot}" + file.path + "'\n";
    }
  }
  text += "%files\n";
  for (const RpmFile& file : spec.files) text += "\"" + file.path + "\"\n";
  return text;
}

}  // namespace

std::optional<std::string> RpmUnavailable() {
  for (const char* program : {"rpm", "rpmbuild"}) {
    if (!OnPath(program)) return std::string(program) + " not found (Debian package rpm, scripts/install-deps.sh)";
  }
  return std::nullopt;
}

std::string BuildRpm(const RpmSpec& spec) {
  static std::mutex mutex;
  static std::map<std::string, std::string> built;
  std::lock_guard lock(mutex);
  std::string key = spec.name + "-" + spec.version + "-" + spec.release;
  if (auto it = built.find(key); it != built.end()) return it->second;
  fs::path top = fs::path(WorkDir().path()) / key;
  fs::create_directories(top);
  fs::path spec_file = top / (spec.name + ".spec");
  std::ofstream(spec_file) << SpecText(spec);
  // No strip, debuginfo or build-id links: the files are empty placeholders. rpmbuild opens an
  // rpm database (Debian's default ~/.rpmdb, created when missing): one of its own, here.
  Run({"rpmbuild", "-bb", "--quiet", "--define", "_topdir " + top.string(), "--define", "__os_install_post %{nil}",
       "--define", "debug_package %{nil}", "--define", "_build_id_links none", "--dbpath", (top / "rpmdb").string(),
       spec_file.string()},
      (top / "rpmbuild.log").string());
  fs::path rpm = top / "RPMS" / "x86_64" / (key + ".x86_64.rpm");
  if (!fs::exists(rpm)) throw std::runtime_error("rpmbuild made no " + rpm.string());
  built[key] = rpm.string();
  return rpm.string();
}

void InstallRpms(const std::string& root_dir, const std::vector<std::string>& rpms, std::string_view dbpath) {
  std::string log = (fs::path(WorkDir().path()) / "rpm.log").string();
  std::vector<std::string> common = {
      "--root", root_dir, "--dbpath", std::string(dbpath), "--define", "_db_backend sqlite"};
  std::vector<std::string> init = {"rpm", "--initdb"};
  init.insert(init.end(), common.begin(), common.end());
  Run(init, log);
  if (rpms.empty()) return;
  std::vector<std::string> install = {"rpm", "-i", "--justdb", "--nodeps", "--noscripts"};
  install.insert(install.end(), common.begin(), common.end());
  install.insert(install.end(), rpms.begin(), rpms.end());
  Run(install, log);
}

std::vector<RpmSpec> FedoraRocmPackages() {
  RpmSpec hip{"rocm-hip", "6.3.1", "1.fc42", {}, std::nullopt};
  hip.files = {{"/usr/lib64/libamdhip64.so.6", "libamdhip64.so.6.3.21153"},
               {"/usr/lib64/libamdhip64.so.6.3.21153", ""}};
  RpmSpec rocblas{"rocblas", "6.3.1", "1.fc42", {}, std::nullopt};
  rocblas.files = {{"/usr/lib64/librocblas.so.4", "librocblas.so.4.3"},
                   {"/usr/lib64/librocblas.so.4.3", ""},
                   {"/usr/lib64/rocblas/library/TensileLibrary_gfx1030.dat", ""}};
  return {hip, rocblas};
}

}  // namespace rocmtune::testing
