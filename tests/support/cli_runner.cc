#include "cli_runner.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace rocmtune::testing {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

nlohmann::ordered_json CliResult::Json() const {
  // parse() refuses trailing content other than whitespace: one document, nothing else.
  auto doc = nlohmann::ordered_json::parse(out, nullptr, false);
  return doc.is_discarded() ? nlohmann::ordered_json(nullptr) : doc;
}

std::string ResultDocumentProblems(const nlohmann::ordered_json& doc) {
  std::string problems;
  auto problem = [&](const std::string& p) { problems += p + "; "; };
  if (!doc.is_object()) return "not one JSON object";
  if (doc.value("schema", "") != "rocmtune.result.v1") problem("schema is not rocmtune.result.v1");
  for (const char* key : {"changed", "check", "reboot_required"})
    if (!doc.contains(key) || !doc[key].is_boolean()) problem(std::string(key) + " is not a boolean");
  if (!doc.contains("transaction") || !(doc["transaction"].is_string() || doc["transaction"].is_null()))
    problem("transaction is not a string or null");
  else if (doc["transaction"].is_string() && !doc.value("changed", false))
    problem("a transaction without changed:true");
  const auto& regen = doc.contains("regenerated") ? doc["regenerated"] : nlohmann::ordered_json();
  for (const char* key : {"initramfs", "bootloader"}) {
    std::string v =
        regen.is_object() && regen.contains(key) && regen[key].is_string() ? regen[key].get<std::string>() : "";
    if (v != "done" && v != "pending" && v != "no")
      problem(std::string("regenerated.") + key + " is not done/pending/no");
  }
  if (!doc.contains("changes") || !doc["changes"].is_array()) {
    problem("changes is not an array");
  } else {
    for (const auto& c : doc["changes"]) {
      for (const char* key : {"backend", "action", "path"})
        if (!c.is_object() || !c.contains(key) || !c[key].is_string()) problem(std::string("a change without ") + key);
      std::string action = c.is_object() ? c.value("action", "") : "";
      if ((action == "write" || action == "remove") && !(c.contains("diff") && c["diff"].is_string()))
        problem("a file change without its diff");
      if (action != "write" && action != "remove" && action != "sysfs-write" && action != "regenerate")
        problem("unknown action " + action);
    }
  }
  for (const char* key : {"warnings", "refused"}) {
    if (!doc.contains(key) || !doc[key].is_array()) {
      problem(std::string(key) + " is not an array");
      continue;
    }
    for (const auto& m : doc[key])
      if (!m.is_object() || !m.contains("message") || !m["message"].is_string() ||
          m["message"].get<std::string>().empty())
        problem(std::string(key) + " entry without a message");
  }
  return problems;
}

WorldCopy::WorldCopy(std::string_view world) : root_(tree_.Path("root")) {
  CopyTree((fs::path(ROCMTUNE_WORLDS_DIR) / world).string(), root_);
}

std::string WorldCopy::Path(std::string_view rel) const { return (fs::path(root_) / rel).string(); }

std::string WorldCopy::Read(std::string_view rel) const { return Slurp(Path(rel)); }

void WorldCopy::Write(std::string_view rel, std::string_view content) const {
  fs::create_directories(fs::path(Path(rel)).parent_path());
  std::ofstream out(Path(rel), std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("write failed: " + Path(rel));
}

bool WorldCopy::Exists(std::string_view rel) const {
  std::error_code ec;
  return fs::exists(fs::symlink_status(Path(rel), ec));
}

size_t WorldCopy::JournalFiles() const {
  std::string dir = Path("var/lib/rocmtune/journal");
  if (!fs::exists(dir)) return 0;
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") ++n;
  return n;
}

CliResult RunCtl(const std::string& root, const std::vector<std::string>& args, const std::string& scratch_dir,
                 bool as_nobody) {
  bool drop = as_nobody && ::geteuid() == 0;
  std::string out_file = scratch_dir + "/stdout", err_file = scratch_dir + "/stderr";
  // The unprivileged user runs a copy it can reach (see ReachableCopy); the build's may not be.
  std::string ctl = drop ? ReachableCopy(ROCMTUNECTL, scratch_dir + "/bin") : std::string(ROCMTUNECTL);
  std::vector<std::string> argv_text = {ctl, "--root", root};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 || ::dup2(in, 0) < 0) ::_exit(125);
    if (drop && (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
                 ::setresuid(65534, 65534, 65534) != 0))
      ::_exit(kCannotDropPrivileges);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) throw std::runtime_error("waitpid failed");
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(out_file);
  r.err = Slurp(err_file);
  return r;
}

CliResult WorldCopy::Ctl(const std::vector<std::string>& args, bool as_nobody) const {
  if (as_nobody && ::geteuid() == 0)
    fs::permissions(tree_.path(), fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
  return RunCtl(root_, args, tree_.path(), as_nobody);
}

void GiveKfd(const WorldCopy& w) {
  auto status = w.Ctl({"status", "--json"});
  const nlohmann::ordered_json doc = status.Json();
  if (!doc.is_object()) throw std::runtime_error("status --json failed: " + status.err);
  const std::string nodes = "sys/class/kfd/kfd/topology/nodes";
  if (!w.Exists(nodes + "/0")) {
    w.Write(nodes + "/0/gpu_id", "0\n");
    w.Write(nodes + "/0/name", "\n");
    w.Write(nodes + "/0/properties", "cpu_cores_count 8\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\n");
  }
  int next = 1;
  while (w.Exists(nodes + "/" + std::to_string(next))) ++next;
  for (const auto& g : doc["gpus"]) {
    if (!g["kfd_node"].is_null() || !g["gfx_target_version"].is_number() || !g["id"].is_string()) continue;
    const std::string id = g["id"].get<std::string>();  // 0000:03:00.0
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    if (std::sscanf(id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) continue;
    unsigned device = 0;
    if (g["pci_id"].is_string()) std::sscanf(g["pci_id"].get<std::string>().c_str(), "%*x:%x", &device);
    unsigned minor = 0;
    if (g["render_node"].is_string()) std::sscanf(g["render_node"].get<std::string>().c_str(), "renderD%u", &minor);
    const std::string dir = nodes + "/" + std::to_string(next++);
    w.Write(dir + "/gpu_id", std::to_string(40000 + next) + "\n");
    w.Write(dir + "/name", "\n");
    w.Write(dir + "/properties", "cpu_cores_count 0\nsimd_count 96\ngfx_target_version " +
                                     std::to_string(g["gfx_target_version"].get<unsigned>()) +
                                     "\nvendor_id 4098\ndevice_id " + std::to_string(device) + "\nlocation_id " +
                                     std::to_string((bus << 8) | (dev << 3) | fn) + "\ndomain " +
                                     std::to_string(domain) + "\ndrm_render_minor " + std::to_string(minor) +
                                     "\nlocal_mem_size 0\nunique_id 0\n");
  }
}

std::vector<std::string> MatchingBuiltinProfiles(const WorldCopy& w) {
  auto listed = w.Ctl({"profiles", "--json"});
  if (listed.exit_code != 0) throw std::runtime_error("profiles --json failed: " + listed.err);
  std::vector<std::string> out;
  const nlohmann::ordered_json doc = listed.Json();  // kept: a range-for over a temporary's member dangles
  for (const auto& p : doc["profiles"])
    if (p["origin"] == "builtin" && p["matches"] == true) out.push_back(p["name"]);
  return out;
}

}  // namespace rocmtune::testing
