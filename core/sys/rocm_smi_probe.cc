// ProbeRocmSmi: ReadRocmSmi in a forked (for a threaded caller, re-exec'd) child whose stdout
// and stderr are /dev/null, its answer a JSON document on a pipe. rocm-smi-lib 5.2 is built with assert() live and
// prints its errors to stdout; a crash, a hang or a stray line stays in the child. The child keeps no descriptor but
// the pipe (not the caller's bus connection or root handle) and enters the sandbox (sys/sandbox.h: its own /dev/shm, no
// privileges) before the library is loaded.
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <limits>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sys/rocm_smi.h"
#include "sys/sandbox.h"
#include "sys/unique_fd.h"
#include "util/json_limits.h"

namespace rocmtune::sys {
namespace {

using json = nlohmann::ordered_json;
constexpr size_t kMaxAnswer = 1 << 20;

template <typename T>
void PutFact(json& obj, const char* key, const SmiFact<T>& fact, json value) {
  obj[key] = fact.value ? std::move(value) : json{{"unknown", fact.unknown}};
}

// An unsigned integer that fits T. nlohmann's get<uint64_t>() casts whatever number it finds: a
// fraction, a negative number or one past the range (undefined behaviour for 1e46) is an answer
// not understood instead.
template <typename T>
T Unsigned(const json& v) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() > std::numeric_limits<T>::max())
    throw json::type_error::create(302, fmt::format("expected an unsigned {}-bit integer", sizeof(T) * 8), &v);
  return static_cast<T>(v.get<uint64_t>());
}

template <typename T, typename F>
SmiFact<T> GetFact(const json& obj, const char* key, F&& read) {
  const json& v = obj.at(key);
  if (v.is_object() && v.contains("unknown")) return {std::nullopt, v.at("unknown").get<std::string>()};
  return {read(v), {}};
}

SmiProbe Failed(std::string why) {
  SmiProbe probe;
  probe.error = std::move(why);
  return probe;
}

// Every descriptor above stderr but `keep` (the pipe, kept open, so keep > STDERR_FILENO).
void CloseOthers(int keep) {
  if (keep > STDERR_FILENO + 1) ::close_range(STDERR_FILENO + 1, keep - 1, 0);
  ::close_range(keep + 1, ~0U, 0);
}

bool WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// stdin, stdout and stderr on /dev/null: rocm-smi-lib prints its errors to stdout.
void QuietStdio() {
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
}

// The child's answer: one line naming the library once it is loaded (so that a library that
// aborts or hangs is named), then the probe as JSON.
[[noreturn]] void Answer(int out, const std::vector<SmiLibrary>& libraries, const SandboxOptions& sandbox_options) {
  std::string text;
  bool named = false;
  try {
    auto sandbox = EnterSandbox(sandbox_options);
    auto loaded = [&](SmiKind kind) { named = WriteAll(out, fmt::format("{}\n", SmiKindName(kind))); };
    SmiProbe probe = sandbox ? ReadSmi(libraries, loaded) : Failed(sandbox.error().message);
    text = (named ? "" : "\n") + SmiProbeToJson(probe).dump();
  } catch (...) {
    _exit(3);
  }
  if (!WriteAll(out, text)) _exit(2);
  _exit(0);  // never exit(): the parent's stdio buffers and atexit handlers are not the child's
}

[[noreturn]] void Child(int out, const SmiOptions& options, const SandboxOptions& sandbox_options) {
  QuietStdio();
  CloseOthers(out);
  Answer(out, options.libraries, sandbox_options);
}

// The re-exec'd child's descriptor for the pipe, and its exit status when execv fails.
constexpr int kChildPipe = 3;
constexpr int kExecFailed = 127;

// Between fork and execv: only async-signal-safe calls, on what the parent prepared.
[[noreturn]] void ExecChild(int out, char* const* argv) {
  QuietStdio();
  if (out != kChildPipe) ::dup2(out, kChildPipe);
  ::fcntl(kChildPipe, F_SETFD, 0);  // dup2 onto itself keeps O_CLOEXEC
  ::close_range(kChildPipe + 1, ~0U, 0);
  ::execv("/proc/self/exe", argv);
  _exit(kExecFailed);
}

std::string ChildArguments(const SmiOptions& options, const SandboxOptions& sandbox) {
  json libraries = json::array();
  for (const SmiLibrary& l : options.libraries) libraries.push_back({static_cast<int>(l.kind), l.name});
  return json{{"uid", sandbox.uid},
              {"gid", sandbox.gid},
              {"shm_is_private", sandbox.shm_is_private},
              {"libraries", std::move(libraries)}}
      .dump();
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("exited {}", WEXITSTATUS(status));
}

}  // namespace

json SmiProbeToJson(const SmiProbe& probe) {
  json devices = json::array();
  for (const SmiDevice& d : probe.devices) {
    json fw = json::object(), ecc = json::object(), dev;
    for (const SmiNamedFirmware& f : d.firmware) PutFact(fw, f.block.c_str(), f.version, f.version.value.value_or(0));
    for (const SmiNamedEcc& e : d.ecc) {
      SmiEccCount c = e.count.value.value_or(SmiEccCount{});
      PutFact(ecc, e.block.c_str(), e.count, json{c.correctable, c.uncorrectable});
    }
    json levels = json::array();
    if (d.pcie.value)
      for (const SmiPcieLevel& l : d.pcie.value->levels) levels.push_back({l.transfer_rate, l.lanes});
    dev["bdfid"] = d.bdfid;
    dev["firmware"] = std::move(fw);
    PutFact(dev, "ecc_enabled", d.ecc_enabled, d.ecc_enabled.value.value_or(0));
    dev["ecc"] = std::move(ecc);
    PutFact(dev, "pcie", d.pcie,
            json{{"levels", std::move(levels)}, {"current", d.pcie.value ? d.pcie.value->current : 0}});
    PutFact(dev, "replay_count", d.replay_count, d.replay_count.value.value_or(0));
    PutFact(dev, "throttle_status", d.throttle_status, d.throttle_status.value.value_or(0));
    devices.push_back(std::move(dev));
  }
  return {{"error", probe.error},
          {"source", probe.source},
          {"library", probe.library},
          {"version", probe.version},
          {"devices", std::move(devices)}};
}

SmiProbe SmiProbeFromJson(const json& doc) {
  SmiProbe probe;
  probe.error = doc.at("error").get<std::string>();
  probe.source = doc.value("source", std::string());
  probe.library = doc.value("library", std::string());
  probe.version = doc.at("version").get<std::string>();
  auto u64 = [](const json& v) { return Unsigned<uint64_t>(v); };
  for (const json& d : doc.at("devices")) {
    SmiDevice dev;
    dev.bdfid = Unsigned<uint64_t>(d.at("bdfid"));
    for (const std::string& block : SmiFirmwareBlocks())
      dev.firmware.push_back({block, GetFact<uint64_t>(d.at("firmware"), block.c_str(), u64)});
    dev.ecc_enabled = GetFact<uint64_t>(d, "ecc_enabled", u64);
    for (const std::string& block : SmiEccBlocks())
      dev.ecc.push_back({block, GetFact<SmiEccCount>(d.at("ecc"), block.c_str(), [](const json& v) {
                           return SmiEccCount{Unsigned<uint64_t>(v.at(0)), Unsigned<uint64_t>(v.at(1))};
                         })});
    dev.pcie = GetFact<SmiPcie>(d, "pcie", [](const json& v) {
      SmiPcie p;
      for (const json& l : v.at("levels"))
        p.levels.push_back({Unsigned<uint64_t>(l.at(0)), Unsigned<uint32_t>(l.at(1))});
      p.current = Unsigned<uint32_t>(v.at("current"));
      if (p.current >= p.levels.size()) throw json::other_error::create(501, "pcie current out of range", &v);
      return p;
    });
    dev.replay_count = GetFact<uint64_t>(d, "replay_count", u64);
    dev.throttle_status = GetFact<uint32_t>(d, "throttle_status", [](const json& v) { return Unsigned<uint32_t>(v); });
    probe.devices.push_back(std::move(dev));
  }
  return probe;
}

SmiProbe ProbeRocmSmi(const SmiOptions& options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Failed(fmt::format("cannot ask the SMI library: pipe: {}", strerror(errno)));
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  const SandboxOptions sandbox = ProbeSandboxOptions(options.shm_is_private);
  // The re-exec'd child's argv, built before fork: after it, only ExecChild's calls.
  std::string arguments = options.reexec ? ChildArguments(options, sandbox) : std::string();
  std::string program = "rocmtune-smi-probe", marker = kSmiProbeChildArg;
  char* const argv[] = {program.data(), marker.data(), arguments.data(), nullptr};
  pid_t pid = ::fork();
  if (pid < 0) return Failed(fmt::format("cannot ask the SMI library: fork: {}", strerror(errno)));
  if (pid == 0) {
    if (options.reexec) ExecChild(write_end.get(), argv);
    Child(write_end.get(), options, sandbox);
  }
  write_end.Reset();

  std::string text;
  bool timed_out = false, too_long = false;
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{read_end.get(), POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    char buf[8192];
    ssize_t n = ::read(read_end.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxAnswer) {
      too_long = true;
      break;
    }
  }
  if (timed_out || too_long) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  // The first line names the library the child loaded; before it did, the parent cannot say which.
  size_t eol = text.find('\n');
  std::string who = eol == std::string::npos ? std::string() : text.substr(0, eol);
  if (who != SmiKindName(SmiKind::kAmdSmi) && who != SmiKindName(SmiKind::kRocmSmi)) who = "the SMI library";
  if (timed_out) return Failed(fmt::format("{} did not answer within {} ms", who, options.timeout.count()));
  if (too_long) return Failed(fmt::format("{}'s answer was longer than expected", who));
  if (options.reexec && text.empty() && WIFEXITED(status) && WEXITSTATUS(status) == kExecFailed)
    return Failed("cannot ask the SMI library: this program could not start itself again (/proc/self/exe)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Failed(fmt::format("{} failed: the process asking it {}", who, DescribeExit(status)));
  if (eol == std::string::npos) return Failed("the SMI library's answer is not understood: no first line");
  auto doc = ParseBoundedJson(std::string_view(text).substr(eol + 1), fmt::format("{}'s answer", who));
  if (!doc) return Failed(doc.error().message);
  try {
    return SmiProbeFromJson(*doc);
  } catch (const json::exception& e) {
    return Failed(fmt::format("{}'s answer is not understood: {}", who, e.what()));
  }
}

std::optional<int> RunSmiProbeChild(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != kSmiProbeChildArg) return std::nullopt;
  if (argc != 3 || ::fcntl(kChildPipe, F_GETFD) < 0) return 2;  // started by hand, not by ProbeRocmSmi
  SandboxOptions sandbox;
  std::vector<SmiLibrary> libraries;
  try {
    const json doc = json::parse(argv[2]);
    sandbox.uid = Unsigned<uid_t>(doc.at("uid"));
    sandbox.gid = Unsigned<gid_t>(doc.at("gid"));
    sandbox.shm_is_private = doc.at("shm_is_private").get<bool>();
    for (const json& l : doc.at("libraries")) {
      int kind = l.at(0).get<int>();
      if (kind != static_cast<int>(SmiKind::kRocmSmi) && kind != static_cast<int>(SmiKind::kAmdSmi)) return 2;
      libraries.push_back({static_cast<SmiKind>(kind), l.at(1).get<std::string>()});
    }
  } catch (const json::exception&) {
    return 2;
  }
  Answer(kChildPipe, libraries, sandbox);
}

}  // namespace rocmtune::sys
