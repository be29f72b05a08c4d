// One verdict: `status`, `doctor` and `check-compute` render one assessment, so
// they never contradict — on every world, and on each world with the inputs where the issue found
// them disagreeing: an HSA_OVERRIDE_GFX_VERSION of another ISA (10.3.0, 11.0.0) in
// /etc/environment, no KFD at all, and a KFD topology without the first GPU. Each case runs the
// CLI as a user would (--json) and checks:
//   - status's findings are doctor's (id, severity, GPU), in the same order;
//   - each GPU's compute verdict in status is check-compute's (state, usable, safe);
//   - every reason check-compute gives is a doctor problem (warning or error) concerning that GPU;
//   - check-compute not safe (or no usable GPU) for any workload <=> doctor finds a problem that
//     makes it so; doctor "nothing wrong" => check-compute safe for every workload;
//   - the exit codes say the same (check-compute 0 iff safe; doctor 1 iff problems).
// "safe" is true, false or null (null: unknown, e.g. no ROCm runtime found, or one whose code
// rocmtune cannot read or list: mi25's ROCm 3.5.1, vangogh without ROCm). Before the verdict had
// states it was a boolean and this test read it as one; unknown is not safe, so it counts as
// "not safe" below and must still be a doctor problem (runtime.unknown is a warning).
#include <cctype>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "world_names.h"

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

std::string Text(const json& v) { return v.is_string() ? v.get<std::string>() : ""; }

// "safe": true only when the JSON says true; false and null (unknown) are not safe.
bool IsSafe(const json& v) {
  EXPECT_TRUE(v.is_boolean() || v.is_null()) << v.dump();
  return v.is_boolean() && v.get<bool>();
}

using Key = std::tuple<std::string, std::string, std::string>;  // id, severity, gpu

std::vector<Key> Keys(const json& findings) {
  std::vector<Key> out;
  for (const json& f : findings) out.emplace_back(Text(f["id"]), Text(f["severity"]), Text(f["gpu"]));
  return out;
}

json RunCtl(const WorldCopy& w, const std::vector<std::string>& args, int* exit_code = nullptr) {
  auto r = w.Ctl(args);
  if (exit_code) *exit_code = r.exit_code;
  json doc = r.Json();
  EXPECT_TRUE(doc.is_object()) << args[0] << ": " << r.out << r.err;
  return doc;
}

// Whether doctor has a problem finding concerning GPU `id` with the given id.
bool DoctorProblem(const json& doctor, const std::string& finding, const std::string& gpu) {
  for (const json& f : doctor["findings"])
    if (Text(f["id"]) == finding && Text(f["severity"]) != "info" && (Text(f["gpu"]).empty() || Text(f["gpu"]) == gpu))
      return true;
  return false;
}

void ExpectOneVerdict(const WorldCopy& w, const std::string& label) {
  SCOPED_TRACE(label);
  int doctor_exit = -1;
  json status = RunCtl(w, {"status", "--json"});
  json doctor = RunCtl(w, {"doctor", "--json"}, &doctor_exit);
  ASSERT_TRUE(status.is_object() && doctor.is_object());
  EXPECT_EQ(Keys(status["findings"]), Keys(doctor["findings"]));
  bool problems = doctor["problems"].get<bool>();
  EXPECT_EQ(doctor_exit, problems ? 1 : 0);
  for (const char* workload : {"any", "conv", "gemm"}) {
    SCOPED_TRACE(workload);
    int cc_exit = -1;
    json cc = RunCtl(w, {"check-compute", "--json", "--workload", workload}, &cc_exit);
    ASSERT_TRUE(cc.is_object());
    bool safe = IsSafe(cc["safe"]);
    EXPECT_EQ(cc_exit, safe ? 0 : 1);
    // null exactly when the machine's state is unknown.
    EXPECT_EQ(cc["safe"].is_null(), Text(cc["state"]) == "unknown") << cc.dump();
    if (!problems) {
      EXPECT_TRUE(safe) << "doctor found nothing wrong, check-compute says not safe: " << cc.dump();
    }
    ASSERT_EQ(cc["gpus"].size(), status["gpus"].size());
    for (size_t i = 0; i < cc["gpus"].size(); ++i) {
      const json& g = cc["gpus"][i];
      const std::string id = Text(g["id"]);
      ASSERT_EQ(id, Text(status["gpus"][i]["id"]));
      if (std::string(workload) == "any") {
        EXPECT_EQ(g["state"], status["gpus"][i]["compute"]["state"]) << id;
        EXPECT_EQ(g["usable"], status["gpus"][i]["compute"]["usable"]) << id;
        EXPECT_EQ(g["safe"], status["gpus"][i]["compute"]["safe"]) << id;
      }
      for (const json& r : g["reasons"])
        EXPECT_TRUE(DoctorProblem(doctor, Text(r["id"]), id))
            << id << ": reason " << r["id"] << " is no doctor problem";
      if (!IsSafe(g["safe"])) {
        EXPECT_TRUE(problems) << id;
      }
    }
  }
}

std::vector<std::string> Worlds() { return testing::WorldNames(); }

class OneVerdict : public ::testing::TestWithParam<std::string> {};

TEST_P(OneVerdict, AsCaptured) {
  WorldCopy w(GetParam());
  ExpectOneVerdict(w, "as captured");
}

TEST_P(OneVerdict, WithAnOverrideOfAnotherIsa) {
  for (const char* value : {"10.3.0", "11.0.0", "9.0.0"}) {
    WorldCopy w(GetParam());
    w.Write("etc/environment", std::string("HSA_OVERRIDE_GFX_VERSION=") + value + "\n");
    ExpectOneVerdict(w, std::string("HSA_OVERRIDE_GFX_VERSION=") + value);
  }
}

TEST_P(OneVerdict, WithoutKfd) {
  WorldCopy w(GetParam());
  std::filesystem::remove_all(w.Path("sys/class/kfd"));
  ExpectOneVerdict(w, "no sys/class/kfd");
}

TEST_P(OneVerdict, WithATopologyWithoutTheFirstGpu) {
  WorldCopy w(GetParam());
  const std::filesystem::path nodes = w.Path("sys/class/kfd/kfd/topology/nodes");
  std::error_code ec;
  for (const auto& node : std::filesystem::directory_iterator(nodes, ec)) {
    if (w.Read((node.path() / "gpu_id").string().substr(w.root().size() + 1)) == "0\n") continue;  // the CPU
    std::filesystem::remove_all(node.path());
    break;
  }
  ExpectOneVerdict(w, "KFD without the first GPU node");
}

INSTANTIATE_TEST_SUITE_P(AllWorlds, OneVerdict, ::testing::ValuesIn(Worlds()), [](const auto& world) {
  std::string name = world.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

// The cases, named: the crash check-compute exists to prevent is never "safe".
TEST(OneVerdictCases, CrossIsaOverrideIsNotSafe) {
  for (const auto& [world, value] : std::vector<std::pair<std::string, std::string>>{
           {"rx7900xtx", "10.3.0"}, {"strixpoint", "11.0.0"}, {"rx5700xt", "10.3.0"}}) {
    WorldCopy w(world);
    w.Write("etc/environment", "HSA_OVERRIDE_GFX_VERSION=" + value + "\n");
    int exit_code = -1;
    json cc = RunCtl(w, {"check-compute", "--json"}, &exit_code);
    EXPECT_EQ(exit_code, 1) << world << " " << cc.dump();
    EXPECT_FALSE(IsSafe(cc["safe"])) << world;
    // Not "unknown" either: a known crash is an answer (these captures have no KFD: unusable).
    EXPECT_THAT(Text(cc["state"]), ::testing::AnyOf("unsafe", "unusable")) << world << " " << cc.dump();
  }
}

TEST(OneVerdictCases, AGpuKfdDoesNotListIsNotUsable) {
  WorldCopy w("rx6600");
  std::filesystem::remove_all(w.Path("sys/class/kfd"));
  int exit_code = -1;
  json cc = RunCtl(w, {"check-compute", "--json"}, &exit_code);
  EXPECT_EQ(exit_code, 1);
  ASSERT_FALSE(cc["gpus"].empty());
  EXPECT_FALSE(cc["gpus"][0]["usable"].get<bool>());
  auto human = w.Ctl({"check-compute"});
  EXPECT_NE(human.out.find("NOT USABLE"), std::string::npos) << human.out;
  auto doctor = w.Ctl({"doctor"});
  EXPECT_EQ(doctor.exit_code, 1);
  EXPECT_EQ(doctor.out.find("Nothing wrong found"), std::string::npos) << doctor.out;
}

}  // namespace
}  // namespace rocmtune::client
