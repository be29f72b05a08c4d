// The earned verdict on the machines an expert tried it on (each built from a captured world, the
// runtime layouts of tests/support/runtime_layouts.h and the environment the program runs with):
// the state says what a program meets — the runtime it loads has code for the GPU or not, a known
// crash of high or medium confidence holds or not — never a rumour, never "safe" without code.
#include <cstdlib>
#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/check_compute.h"
#include "api/doctor.h"
#include "cli_runner.h"
#include "runtime_layouts.h"
#include "test_tree.h"
#include "world_names.h"

namespace rocmtune::api {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::WorldCopy;
using State = diagnose::State;

// AMD's rocBLAS Tensile targets in ROCm 6.2 (data/runtime_code.toml, rocBLAS rocm-6.2.0) and the
// MIOpen kernel databases AMD ships for its supported targets.
const std::vector<std::string> kRocblas62 = {"gfx900",  "gfx906",  "gfx908",  "gfx90a",  "gfx942", "gfx1010",
                                             "gfx1012", "gfx1030", "gfx1100", "gfx1101", "gfx1102"};
// PyTorch 2.5's wheels: PYTORCH_ROCM_ARCH without gfx101x or gfx1031..1036.
const std::vector<std::string> kTorch25 = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"};

knobs::EnvSetting Var(std::string name, std::string value) { return {"", 0, std::move(name), std::move(value)}; }

ComputeReport Check(const WorldCopy& w, std::string_view workload, std::vector<knobs::EnvSetting> env = {},
                    std::optional<program::Context> program = std::nullopt) {
  auto root = sys::Root::Open(w.root());
  EXPECT_TRUE(root);
  detect::DetectOptions options;
  options.use_libdrm = false;
  auto report =
      CheckCompute(*root, detect::Detect(*root, options), workload, "", true, std::move(env), std::move(program));
  EXPECT_TRUE(report) << report.error().message;
  return report ? *report : ComputeReport{};
}

// ROCMTUNE_KEEP_WORLDS=DIR keeps a copy of a machine's world in DIR/NAME, to run rocmtunectl on
// it by hand (the session notes' transcripts).
void Keep(const WorldCopy& w, std::string_view name) {
  const char* dir = std::getenv("ROCMTUNE_KEEP_WORLDS");
  if (!dir || !*dir) return;
  std::filesystem::remove_all(std::filesystem::path(dir) / name);
  testing::CopyTree(w.root(), (std::filesystem::path(dir) / name).string());
}

const ComputeGpu& Gpu(const ComputeReport& r, std::string_view gfx) {
  for (const ComputeGpu& g : r.gpus)
    if (g.gpu.gfx_target == gfx) return g;
  throw std::runtime_error("no " + std::string(gfx) + " GPU");
}

std::set<std::string> Ids(const std::vector<ComputeReason>& reasons) {
  std::set<std::string> out;
  for (const ComputeReason& r : reasons) out.insert(r.finding.id);
  return out;
}

void SetKfd(const WorldCopy& w, int node, std::string_view key, std::string_view value) {
  const std::string rel = "sys/class/kfd/kfd/topology/nodes/" + std::to_string(node) + "/properties";
  std::string props = w.Read(rel);
  size_t at = props.find(std::string(key) + " ");
  if (at == std::string::npos) {
    props += std::string(key) + " " + std::string(value) + "\n";
  } else {
    size_t end = props.find('\n', at);
    props.replace(at, end - at, std::string(key) + " " + std::string(value));
  }
  w.Write(rel, props);
}

// The rx6900xt capture as an RX 6700 XT (Navi 22, 1002:73DF rev c1, gfx1031): the same card
// slot, the PCI id and revision amdgpu.ids names "AMD Radeon RX 6700 XT", KFD's gfx1031.
void AsRx6700Xt(const WorldCopy& w) {
  const std::string dev = "sys/devices/pci0000:00/0000:0c:00.0/";
  w.Write(dev + "device", "0x73df\n");
  w.Write(dev + "revision", "0xc1\n");
  std::string uevent = w.Read(dev + "uevent");
  for (std::string_view from : {"73BF", "73bf"})
    for (size_t at = uevent.find(from); at != std::string::npos; at = uevent.find(from, at))
      uevent.replace(at, 4, "73DF");
  w.Write(dev + "uevent", uevent);
  testing::GiveKfd(w);
  SetKfd(w, 1, "gfx_target_version", "100301");
}

// A Ryzen 7000 desktop: the Raphael iGPU (gfx1036, KFD only, from the phoenix APU's captured
// node) beside an RX 6800-class Navi21 card (the rx6900xt capture, gfx1030), in either KFD order.
void RaphaelPlusRx6800(const WorldCopy& w, bool igpu_first) {
  testing::GiveKfd(w);  // node 1: the dGPU at 0000:0c:00.0
  const std::string nodes = "sys/class/kfd/kfd/topology/nodes";
  const std::string apu = testing::WorldPath("phoenix") + "/" + nodes + "/1";
  testing::CopyTree(apu, w.Path(nodes + "/2"));
  SetKfd(w, 2, "gfx_target_version", "100306");
  SetKfd(w, 2, "device_id", "5710");    // 0x164e, Raphael
  SetKfd(w, 2, "location_id", "4608");  // 0000:12:00.0
  SetKfd(w, 2, "drm_render_minor", "129");
  if (igpu_first) {
    std::filesystem::rename(w.Path(nodes + "/1"), w.Path(nodes + "/9"));
    std::filesystem::rename(w.Path(nodes + "/2"), w.Path(nodes + "/1"));
    std::filesystem::rename(w.Path(nodes + "/9"), w.Path(nodes + "/2"));
  }
  testing::InstallSystemRocm(w, "6.2.4", kRocblas62);
}

TEST(EarnedVerdictTest, RaphaelBesideAnRx6800HidesTheIgpuAndKeepsTheCardInBothOrders) {
  for (bool igpu_first : {false, true}) {
    SCOPED_TRACE(igpu_first ? "iGPU is KFD node 1" : "iGPU is KFD node 2");
    WorldCopy w("rx6900xt");
    RaphaelPlusRx6800(w, igpu_first);
    Keep(w, igpu_first ? "raphael-rx6800-igpu-first" : "raphael-rx6800");
    ComputeReport r = Check(w, "any");
    ASSERT_EQ(r.gpus.size(), 2u);
    const ComputeGpu& card = Gpu(r, "gfx1030");
    const ComputeGpu& igpu = Gpu(r, "gfx1036");
    EXPECT_EQ(card.state, State::kSafe) << Ids(card.reasons).size();
    EXPECT_EQ(igpu.state, State::kUnsupported);
    EXPECT_THAT(Ids(igpu.reasons), Contains("runtime.no-code"));
    EXPECT_EQ(r.state(), State::kUnsupported);  // the program sees both: the iGPU breaks it
    // The advice keeps the card, by its index in ROCr's (KFD's) order, and hides the iGPU.
    auto root = sys::Root::Open(w.root());
    diagnose::AssessOptions options;
    options.live_facts = false;
    detect::DetectOptions detect_options;
    detect_options.use_libdrm = false;
    auto a = diagnose::Assess(*root, detect::Detect(*root, detect_options), options);
    ASSERT_TRUE(a);
    const std::string keep = igpu_first ? "1" : "0";
    bool advised = false;
    bool first = false;
    for (const detect::Finding& f : a->findings) {
      if (f.id == "compute.hide-gpus") {
        advised = true;
        EXPECT_THAT(f.fix.text, HasSubstr("ROCR_VISIBLE_DEVICES=" + keep + " "));
        EXPECT_THAT(f.what, HasSubstr(igpu.gpu.id));
        EXPECT_THAT(f.what, Not(HasSubstr(card.gpu.id)));
      }
      // The iGPU's own fix starts with hiding it; the override comes after.
      if (f.id == "runtime.no-code" && f.gpu == igpu.gpu.id) {
        first = f.fix.text.starts_with("Keep programs on " + card.gpu.id + " and off " + igpu.gpu.id +
                                       ": start them with ROCR_VISIBLE_DEVICES=" + keep + ".");
        EXPECT_TRUE(first) << f.fix.text;
        EXPECT_THAT(f.fix.text, HasSubstr("HSA_OVERRIDE_GFX_VERSION=10.3.0"));
      }
    }
    EXPECT_TRUE(advised);
    EXPECT_TRUE(first);
    // Following it: the iGPU is hidden and the answer is the card's.
    ComputeReport hidden = Check(w, "any", {Var("ROCR_VISIBLE_DEVICES", keep)});
    EXPECT_TRUE(hidden.safe());
    EXPECT_FALSE(Gpu(hidden, "gfx1036").visible);
    EXPECT_EQ(Gpu(hidden, "gfx1030").hip_index, 0);
    nlohmann::ordered_json doc = CheckComputeJson(hidden);
    EXPECT_EQ(doc["safe"], true);
    EXPECT_EQ(doc["state"], "safe");
  }
}

// An RX 6700 XT (gfx1031) whose user runs PyTorch 2.5.1+rocm6.2 from a venv, with ROCm 7.0.2 on
// the system: the venv's bundled runtime decides, and it has no gfx1031 code (rocBLAS aborts:
// "Cannot read TensileLibrary.dat ... for GPU arch : gfx1031"). The fix is the 10.3.0 override,
// offered until it is in effect; the RDNA2 MIOpen rumour is a note, not a verdict.
TEST(EarnedVerdictTest, Rx6700XtWithPytorchInAVenvIsUnsupportedUntilTheOverride) {
  WorldCopy w("rx6900xt");
  AsRx6700Xt(w);
  testing::InstallSystemRocm(w, "7.0.2", {"gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1200"});
  testing::InstallTorchVenv(w.root(), "home/u/venv", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", kTorch25);
  Keep(w, "rx6700xt-torch-venv");
  const std::vector<knobs::EnvSetting> venv = {Var("VIRTUAL_ENV", "/home/u/venv"),
                                               Var("PATH", "/home/u/venv/bin:/usr/bin")};
  ComputeReport r = Check(w, "conv", venv);
  ASSERT_EQ(r.gpus.size(), 1u);
  ASSERT_FALSE(r.program.runtimes.empty());
  EXPECT_EQ(r.program.runtimes.front().kind, runtime::Kind::kTorch);
  EXPECT_EQ(r.gpus[0].state, State::kUnsupported);
  const ComputeReason& why = r.gpus[0].reasons.at(0);
  EXPECT_EQ(why.finding.id, "runtime.no-code");
  EXPECT_THAT(why.finding.what, HasSubstr("2.5.1+rocm6.2"));
  EXPECT_THAT(why.finding.fix.set, Contains("env.HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_EQ(why.finding.fix.profile, "rdna2-consumer-compat");
  EXPECT_TRUE(why.finding.fix.none.empty());
  // Through the CLI, with VIRTUAL_ENV in rocmtunectl's own environment (as `source venv/bin/activate`
  // leaves it): check-compute judges the venv's PyTorch; status, the machine's, names it on a line.
  ::setenv("VIRTUAL_ENV", "/home/u/venv", 1);
  testing::CliResult cli = w.Ctl({"check-compute", "--workload", "conv", "--json"});
  testing::CliResult status = w.Ctl({"status"});
  ::unsetenv("VIRTUAL_ENV");
  EXPECT_EQ(cli.exit_code, 1);
  nlohmann::ordered_json doc = cli.Json();
  EXPECT_EQ(doc["state"], "unsupported");
  EXPECT_EQ(doc["program"]["runtime"]["kind"], "pytorch");
  EXPECT_EQ(doc["program"]["runtime"]["package"], "torch 2.5.1+rocm6.2");
  EXPECT_THAT(status.out, HasSubstr("this shell's Python: PyTorch 2.5.1+rocm6.2"));
  // Its HIP and code, in gfx order, as the system ROCm's line has them.
  EXPECT_THAT(status.out, HasSubstr("(HIP 6.2.41133-dd7f95766, code for gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 "
                                    "gfx1100)"));
  EXPECT_THAT(status.out, HasSubstr("code for gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1101 gfx1200)"));
  EXPECT_THAT(w.Ctl({"status"}).out, Not(HasSubstr("this shell's Python")));
  // Without the venv, the system's ROCm 7.0.2 decides: no gfx1031 code either.
  EXPECT_EQ(Check(w, "conv").gpus[0].state, State::kUnsupported);
  // The override in the caller's environment: gfx1030 code, safe, and not offered again.
  std::vector<knobs::EnvSetting> overridden = venv;
  overridden.push_back(Var("HSA_OVERRIDE_GFX_VERSION", "10.3.0"));
  ComputeReport fixed = Check(w, "conv", overridden);
  EXPECT_TRUE(fixed.safe()) << (fixed.gpus[0].reasons.empty() ? "" : fixed.gpus[0].reasons[0].finding.what);
  EXPECT_THAT(Ids(fixed.gpus[0].notes), Contains("issue.rdna2-miopen-conv-fault"));  // ROCm 6.2 < 7.0: a note
}

// ollama loads the ROCm it bundles in /usr/local/lib/ollama/rocm, whatever /opt/rocm holds: on an
// RX 6700 XT (gfx1031) with a system ROCm that has gfx1031 code, ollama.service is still
// unsupported when its bundle lacks gfx1031, and its own documented override makes it safe.
TEST(EarnedVerdictTest, OllamaIsJudgedByTheRocmItBundles) {
  WorldCopy w("rx6900xt");
  AsRx6700Xt(w);
  // A system ROCm that (for the test's sake) carries gfx1031 code: the shell's programs are fine.
  testing::InstallSystemRocm(w, "6.3.3", {"gfx1030", "gfx1031", "gfx1100"});
  testing::InstallOllama(w.root(), "usr/local", "6.3.42134", {"gfx900", "gfx906", "gfx1030", "gfx1100", "gfx1101"});
  w.Write("usr/bin/.keep", "");
  std::filesystem::create_symlink("/usr/local/bin/ollama", w.Path("usr/bin/ollama"));
  // ollama's install.sh unit, started through the /usr/bin link; the drop-in resets ExecStart=.
  w.Write("etc/systemd/system/ollama.service",
          "[Unit]\nDescription=Ollama Service\n[Service]\nExecStart=/usr/local/bin/ollama serve\nUser=ollama\n");
  w.Write("etc/systemd/system/ollama.service.d/override.conf",
          "[Service]\nExecStart=\nExecStart=-/usr/bin/ollama serve\nEnvironment=OLLAMA_HOST=0.0.0.0\n");
  w.Write("etc/systemd/system/multi-user.target.wants/.keep", "");
  Keep(w, "rx6700xt-ollama");
  auto root = sys::Root::Open(w.root());
  auto unit = program::UnitContext(*root, "ollama.service", false, "");
  ASSERT_TRUE(unit) << unit.error().message;
  EXPECT_EQ(unit->exec, "/usr/bin/ollama");
  ComputeReport shell = Check(w, "gemm");
  EXPECT_EQ(shell.gpus[0].state, State::kSafe);
  ComputeReport ollama = Check(w, "gemm", {}, *unit);
  ASSERT_FALSE(ollama.program.runtimes.empty());
  const runtime::Runtime& loaded = ollama.program.runtimes.front();
  EXPECT_EQ(loaded.kind, runtime::Kind::kBundled);
  EXPECT_EQ(loaded.where, "/usr/local/lib/ollama/rocm");
  EXPECT_EQ(loaded.version, "6.3");
  EXPECT_EQ(ollama.gpus[0].state, State::kUnsupported);
  const ComputeReason& why = ollama.gpus[0].reasons.at(0);
  EXPECT_EQ(why.finding.id, "runtime.no-code");
  EXPECT_THAT(why.finding.what, HasSubstr("ollama's bundled ROCm 6.3"));
  EXPECT_THAT(why.finding.fix.text, HasSubstr("HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_THAT(why.finding.fix.text, HasSubstr("in ollama.service's environment"));
  EXPECT_THAT(why.finding.fix.text, Not(HasSubstr("TheRock")));  // a wheel does not reach ollama
  EXPECT_THAT(why.finding.fix.text, Not(HasSubstr("ROCm 10.1")));
  EXPECT_TRUE(why.finding.fix.set.empty());  // rocmtune's login-shell knob does not reach a service
  // doctor judges ollama.service by its bundle too.
  auto doctor = Doctor(*root);
  ASSERT_TRUE(doctor) << doctor.error().message;
  int service = 0;
  for (const DoctorFinding& f : doctor->findings)
    if (f.id == "compute.service" && f.subject == "ollama.service") {
      ++service;
      EXPECT_THAT(f.what, HasSubstr("is unsupported for its programs"));
    }
  EXPECT_EQ(service, 1);
  // ollama's documented override in its drop-in: the bundle's gfx1030 code, safe.
  w.Write("etc/systemd/system/ollama.service.d/override.conf",
          "[Service]\nExecStart=\nExecStart=-ollama serve\nEnvironment=HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  unit = program::UnitContext(*root, "ollama.service", false, "");
  ASSERT_TRUE(unit);
  ComputeReport fixed = Check(w, "gemm", {}, *unit);
  EXPECT_EQ(fixed.gpus[0].state, State::kSafe)
      << (fixed.gpus[0].reasons.empty() ? "" : fixed.gpus[0].reasons[0].finding.what);
  // A unit whose program bundles nothing loads the system's ROCm, as before.
  std::filesystem::remove_all(w.Path("usr/local/lib/ollama"));
  unit = program::UnitContext(*root, "ollama.service", false, "");
  ASSERT_TRUE(unit);
  ComputeReport system = Check(w, "gemm", {}, *unit);
  ASSERT_FALSE(system.program.runtimes.empty());
  EXPECT_EQ(system.program.runtimes.front().kind, runtime::Kind::kSystem);
}

// An RX 5700 XT (gfx1010) with TheRock's multi-arch wheels and their gfx1010 device package: native
// code, safe without any override; the folklore 10.3.0 override there is a crash (another ISA),
// and the same override in ollama's service drop-in makes ollama unsafe while the shell is not.
TEST(EarnedVerdictTest, Rx5700XtWithTheRocksGfx1010WheelsIsSafeAndTheOverrideIsNot) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);
  const std::string site = "home/u/rock/lib/python3.12/site-packages";
  w.Write("home/u/rock/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n");
  w.Write("home/u/rock/bin/python3", "");
  testing::InstallTheRockWheels(w.root(), site, "7.10.0", {"gfx1010"});
  const std::vector<knobs::EnvSetting> rock = {Var("VIRTUAL_ENV", "/home/u/rock"),
                                               Var("PATH", "/home/u/rock/bin:/usr/bin")};
  ComputeReport r = Check(w, "gemm", rock);
  ASSERT_EQ(r.gpus.size(), 1u);
  ASSERT_FALSE(r.program.runtimes.empty());
  EXPECT_EQ(r.program.runtimes.front().kind, runtime::Kind::kTheRock);
  EXPECT_EQ(r.gpus[0].state, State::kSafe) << (r.gpus[0].reasons.empty() ? "" : r.gpus[0].reasons[0].finding.what);
  std::vector<knobs::EnvSetting> folklore = rock;
  folklore.push_back(Var("HSA_OVERRIDE_GFX_VERSION", "10.3.0"));
  ComputeReport crash = Check(w, "gemm", folklore);
  EXPECT_EQ(crash.gpus[0].state, State::kUnsafe);
  // The RDNA1 override issue, which says what env.override-other-isa would and more (one finding per fact).
  EXPECT_THAT(Ids(crash.gpus[0].reasons), Contains("issue.rdna1-override-gfx1030"));
  EXPECT_THAT(Ids(crash.gpus[0].reasons), Not(Contains("env.override-other-isa")));
  // ollama.service with the documented override in a drop-in.
  w.Write("etc/systemd/system/ollama.service",
          "[Unit]\nDescription=Ollama\n[Service]\nExecStart=/usr/bin/ollama serve\n"
          "Environment=\"PATH=/usr/local/bin:/usr/bin\"\n");
  w.Write("etc/systemd/system/ollama.service.d/override.conf",
          "[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=10.3.0\"\n");
  Keep(w, "rx5700xt-therock");
  auto root = sys::Root::Open(w.root());
  auto unit = program::UnitContext(*root, "ollama.service", false, "");
  ASSERT_TRUE(unit) << unit.error().message;
  ComputeReport ollama = Check(w, "gemm", {}, *unit);
  EXPECT_EQ(ollama.gpus[0].state, State::kUnsafe);
  EXPECT_EQ(ollama.program.kind, "unit");
  bool from_drop_in = false;
  for (const ComputeReason& reason : ollama.gpus[0].reasons)
    from_drop_in |= reason.finding.file == "etc/systemd/system/ollama.service.d/override.conf";
  EXPECT_TRUE(from_drop_in);
  // doctor (and the export, and rocmtuned) judge ollama as its own program: one compute.service
  // finding at the drop-in's line, with the service's fix, not rocmtune's login-shell knobs.
  auto doctor = Doctor(*root);
  ASSERT_TRUE(doctor) << doctor.error().message;
  std::vector<DoctorFinding> service;
  for (const DoctorFinding& f : doctor->findings)
    if (f.id == "compute.service") service.push_back(f);
  ASSERT_EQ(service.size(), 1u);
  EXPECT_EQ(service[0].subject, "ollama.service");
  EXPECT_EQ(service[0].severity, detect::Severity::kWarning);
  EXPECT_THAT(service[0].what, HasSubstr("is unsafe for its programs"));
  EXPECT_EQ(service[0].file, "etc/systemd/system/ollama.service.d/override.conf");
  EXPECT_THAT(service[0].fix.text, HasSubstr("PYTORCH_ROCM_ARCH=gfx1010. Edit ollama.service's setting in "
                                             "/etc/systemd/system/ollama.service.d/override.conf (systemctl edit "
                                             "ollama.service), then restart it."));
  EXPECT_TRUE(service[0].fix.profile.empty());
  // Without the override ollama loads the system's ROCm 6.2.4, which has rocBLAS's gfx1010 code and
  // no MIOpen code for it: unsupported (any work includes convolutions), said the same way.
  w.Write("etc/systemd/system/ollama.service.d/override.conf", "[Service]\nEnvironment=OLLAMA_HOST=0.0.0.0\n");
  doctor = Doctor(*root);
  ASSERT_TRUE(doctor);
  service.clear();
  for (const DoctorFinding& f : doctor->findings)
    if (f.id == "compute.service") service.push_back(f);
  ASSERT_EQ(service.size(), 1u);
  EXPECT_THAT(service[0].what, HasSubstr("is unsupported for its programs"));
  // The shell without the override is not ollama: the system ROCm 6.2.4 of the capture has
  // rocBLAS's gfx1010 code (gemm runs), MIOpen has none (conv does not).
  ComputeReport shell_conv = Check(w, "conv");
  EXPECT_EQ(shell_conv.gpus[0].state, State::kUnsupported);
}

// Vega 56 (gfx900) on ROCm 6.4: AMD dropped it; no library found to say otherwise: unsupported, not
// "safe" (the README's promise), and a GPU the system has no runtime for at all is unknown.
TEST(EarnedVerdictTest, Vega56OnRocm64IsUnsupportedAndNoRuntimeIsUnknown) {
  WorldCopy w("vega56");
  testing::GiveKfd(w);
  w.Write("opt/rocm/.info/version", "6.4.1\n");
  ComputeReport r = Check(w, "any");
  EXPECT_EQ(r.state(), State::kUnsupported);
  EXPECT_EQ(CheckComputeJson(r)["safe"], false);
  std::filesystem::remove_all(w.Path("opt"));
  ComputeReport none = Check(w, "any");
  EXPECT_EQ(none.state(), State::kUnknown);
  EXPECT_TRUE(CheckComputeJson(none)["safe"].is_null());
}

// An RX 7900 XTX on kernel 6.18 with ROCm 6.4: the 6.18 fault reports are community ones (low
// confidence, log-only): a note, never "NOT SAFE for any work".
TEST(EarnedVerdictTest, Rdna3OnKernel618IsSafeWithTheRumourAsANote) {
  WorldCopy w("rx7900xtx");
  testing::GiveKfd(w);
  w.Write("proc/sys/kernel/osrelease", "6.18.2-arch1-1\n");
  testing::InstallSystemRocm(w, "6.4.1", kRocblas62);
  ComputeReport r = Check(w, "any");
  EXPECT_TRUE(r.safe());
  EXPECT_THAT(Ids(r.gpus[0].notes), Contains("issue.rdna3-rdna4-kernel-6.18-fault"));
  EXPECT_THAT(Ids(r.gpus[0].reasons), IsEmpty());
}

}  // namespace
}  // namespace rocmtune::api
