// rocmtune.plan.v1: what the helper reads from stdin. Round trips are exact; anything else is refused.
#include "plan/plan_json.h"

#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "plan/helper_status.h"

namespace rocmtune::plan {
namespace {

using json = nlohmann::ordered_json;

Op MakeOp(OpKind kind, std::string path, std::optional<std::string> before, std::optional<std::string> after) {
  Op op;
  op.kind = kind;
  op.backend = kind == OpKind::kWriteSysfs   ? BackendId::kSysfs
               : kind == OpKind::kRegenerate ? BackendId::kInitramfs
                                             : BackendId::kModprobe;
  op.path = std::move(path);
  op.before = std::move(before);
  op.after = std::move(after);
  op.reason = "because " + op.path;
  if (kind == OpKind::kRegenerate) op.argv = {"update-initramfs", "-u", "-k", "all"};
  return op;
}

void ExpectSameOp(const Op& a, const Op& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.before, b.before);
  EXPECT_EQ(a.after, b.after);
  EXPECT_EQ(a.argv, b.argv);
  EXPECT_EQ(a.reason, b.reason);
}

Plan FullPlan() {
  Plan p;
  p.intent = {"set", "", {"amdgpu.noretry=0", "cmdline.iommu=pt"}, "", {}};
  p.ops.push_back(
      MakeOp(OpKind::kWriteFile, "etc/modprobe.d/rocmtune.conf", std::nullopt, "options amdgpu noretry=0\n"));
  p.ops.push_back(MakeOp(OpKind::kWriteFile, "etc/default/grub", std::string("A\xff\0B", 4), "GRUB=1\n"));
  p.ops.push_back(MakeOp(OpKind::kRemoveFile, "etc/profile.d/rocmtune.sh", "export X=1\n", std::nullopt));
  p.ops.push_back(MakeOp(OpKind::kRemoveFile, "etc/environment.d/90-rocmtune.conf", std::nullopt, std::nullopt));
  p.ops.push_back(
      MakeOp(OpKind::kWriteSysfs, "sys/class/drm/card0/device/power_dpm_force_performance_level", "auto", "high"));
  p.ops.push_back(MakeOp(OpKind::kWriteSysfs, "sys/class/drm/card0/device/pp_power_profile_mode", std::nullopt, "5"));
  p.ops.push_back(MakeOp(OpKind::kRegenerate, "initramfs-tools", std::nullopt, std::nullopt));
  p.warnings.push_back({"amdgpu.noretry", "a warning", "https://docs.kernel.org/gpu/amdgpu/module-parameters.html"});
  p.refused.push_back({"", "refused text", ""});
  p.conflicts.push_back({"", "drift in /etc/x", ""});
  p.reboot_required = true;
  p.initramfs = Regen::kPending;
  p.bootloader = Regen::kDone;
  return p;
}

std::string Text(const json& doc) { return doc.dump(); }

// The plan's JSON with one change applied, as text.
template <typename F>
std::string Edited(F edit) {
  json doc = PlanToJson(FullPlan());
  edit(doc);
  return Text(doc);
}

TEST(PlanJsonTest, EveryOpKindRoundTrips) {
  Plan p = FullPlan();
  auto back = PlanFromJson(Text(PlanToJson(p)));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->intent.verb, "set");
  EXPECT_EQ(back->intent.args, p.intent.args);
  ASSERT_EQ(back->ops.size(), p.ops.size());
  for (size_t i = 0; i < p.ops.size(); ++i) {
    SCOPED_TRACE(i);
    ExpectSameOp(back->ops[i], p.ops[i]);
  }
  ASSERT_EQ(back->warnings.size(), 1u);
  EXPECT_EQ(back->warnings[0].key, "amdgpu.noretry");
  EXPECT_EQ(back->warnings[0].source, p.warnings[0].source);
  ASSERT_EQ(back->refused.size(), 1u);
  EXPECT_EQ(back->refused[0].message, "refused text");
  ASSERT_EQ(back->conflicts.size(), 1u);
  EXPECT_EQ(back->conflicts[0].message, "drift in /etc/x");
  EXPECT_TRUE(back->reboot_required);
  EXPECT_EQ(back->initramfs, Regen::kPending);
  EXPECT_EQ(back->bootloader, Regen::kDone);
  // And the serialization is stable: the same plan gives the same text.
  EXPECT_EQ(Text(PlanToJson(*back)), Text(PlanToJson(p)));
}

TEST(PlanJsonTest, NullBeforeAndAfterStayNullNotEmpty) {
  Op op = MakeOp(OpKind::kWriteFile, "etc/modprobe.d/rocmtune.conf", std::nullopt, std::string());
  json j = OpToJson(op);
  EXPECT_TRUE(j["before"].is_null());
  EXPECT_TRUE(j["after"].is_string());
  auto back = OpFromJson(j, 0);
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->before.has_value());
  ASSERT_TRUE(back->after.has_value());
  EXPECT_EQ(*back->after, "");
}

TEST(PlanJsonTest, EveryIntentVerbRoundTrips) {
  for (const Intent& intent :
       {Intent{"apply", "rdna1-safe", {}, "", {}}, Intent{"unset", "", {"amdgpu.noretry"}, "", {}},
        Intent{"revert", "", {}, "12", {}}, Intent{"reset", "", {}, "", {}},
        Intent{"apply", "instinct", {"cmdline.iommu=pt"}, "", {"mi-intel-iommu-on"}},
        Intent{"apply", "stock", {"amdgpu.noretry"}, "", {}, true}}) {
    auto back = IntentFromJson(IntentToJson(intent));
    ASSERT_TRUE(back) << intent.verb;
    EXPECT_EQ(back->verb, intent.verb);
    EXPECT_EQ(back->profile, intent.profile);
    EXPECT_EQ(back->args, intent.args);
    EXPECT_EQ(back->reverts, intent.reverts);
    EXPECT_EQ(back->with, intent.with);
    EXPECT_EQ(back->resets, intent.resets);
    EXPECT_EQ(IntentToJson(intent).contains("with"), !intent.with.empty()) << "older journals stay byte-compatible";
    EXPECT_EQ(IntentToJson(intent).contains("resets"), intent.resets) << "older journals stay byte-compatible";
  }
  auto wrong = IntentFromJson(nlohmann::ordered_json::parse(R"({"verb":"apply","resets":"yes"})"));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("resets"), std::string::npos) << wrong.error().message;
}

TEST(PlanJsonTest, MinimalPlanTakesDefaults) {
  auto p = PlanFromJson(R"({"schema":"rocmtune.plan.v1","intent":{"verb":"set"},"ops":[]})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->empty());
  EXPECT_FALSE(p->reboot_required);
  EXPECT_EQ(p->initramfs, Regen::kNo);
  EXPECT_EQ(p->bootloader, Regen::kNo);
  EXPECT_TRUE(p->refused.empty());
}

// Backends and regenerators are enums in memory, named by one table in plans and journals.
TEST(PlanJsonTest, BackendAndRegeneratorNamesRoundTrip) {
  for (BackendId b : {BackendId::kModprobe, BackendId::kCmdline, BackendId::kSysfs, BackendId::kEnv,
                      BackendId::kInitramfs, BackendId::kBootloader, BackendId::kService})
    EXPECT_EQ(ParseBackendId(Name(b)), b) << Name(b);
  EXPECT_EQ(Name(BackendId::kInitramfs), "initramfs");
  // 10 regenerators (kernelstub among them), the 3 one-shot switches of trial boots
  // (grub-editenv, grub2-editenv, bootctl), the 2 commands that tell power-profiles-daemon about
  // its drop-in (systemctl, busctl), rpm-ostree's kargs and initramfs-etc (one program, two rows)
  // and bootc's source options.
  EXPECT_EQ(Regenerators().size(), 18u);
  for (const RegeneratorRow& r : Regenerators()) {
    EXPECT_EQ(ParseRegenerator(r.name), r.id) << r.name;
    EXPECT_EQ(Name(r.id), r.name);
  }
  EXPECT_EQ(Name(Regenerator::kInitramfsTools), "initramfs-tools");
  EXPECT_EQ(Row(Regenerator::kInitramfsTools).program, "update-initramfs");
  EXPECT_FALSE(ParseRegenerator("update-initramfs")) << "a program, not a regenerator's name";
  EXPECT_EQ(RegeneratorOfProgram("update-initramfs"), Regenerator::kInitramfsTools);
  EXPECT_FALSE(RegeneratorOfProgram("sh"));
  EXPECT_EQ(Name(BackendId::kService), "service");
  EXPECT_FALSE(ParseBackendId("Modprobe"));
  EXPECT_FALSE(ParseBackendId(""));
}

// A rollback or revert of a trial's one-shot switch runs the opposite one; nothing else has one.
TEST(PlanJsonTest, TrialSwitchesHaveTheirInverse) {
  using V = std::vector<std::string>;
  EXPECT_EQ(InverseSwitch({"grub-editenv", "/boot/grub/grubenv", "set", "next_entry=rocmtune-trial"}),
            (V{"grub-editenv", "/boot/grub/grubenv", "unset", "next_entry"}));
  EXPECT_EQ(InverseSwitch({"grub2-editenv", "-", "unset", "next_entry"}),
            (V{"grub2-editenv", "-", "set", "next_entry=rocmtune-trial"}));
  EXPECT_EQ(InverseSwitch({"bootctl", "set-oneshot", "rocmtune-trial.conf"}), (V{"bootctl", "set-oneshot", ""}));
  EXPECT_EQ(InverseSwitch({"bootctl", "set-oneshot", ""}), (V{"bootctl", "set-oneshot", "rocmtune-trial.conf"}));
  EXPECT_FALSE(InverseSwitch({"update-grub"}));
  EXPECT_FALSE(InverseSwitch({"grub-editenv", "/boot/grub/grubenv", "set", "saved_entry=x"}));
}

TEST(PlanJsonTest, OpKindAndRegenNamesRoundTrip) {
  for (OpKind k : {OpKind::kWriteFile, OpKind::kRemoveFile, OpKind::kWriteSysfs, OpKind::kRegenerate}) {
    auto parsed = ParseOpKind(OpKindName(k));
    ASSERT_TRUE(parsed) << OpKindName(k);
    EXPECT_EQ(*parsed, k);
  }
  for (Regen r : {Regen::kNo, Regen::kPending, Regen::kDone}) EXPECT_EQ(ParseRegen(RegenName(r)).value(), r);
  EXPECT_FALSE(ParseOpKind("Write"));
  EXPECT_FALSE(ParseOpKind(""));
  EXPECT_FALSE(ParseRegen("yes"));
}

struct Refusal {
  std::string name;
  std::string text;
  std::string says;  // a piece of the error message
};

TEST(PlanJsonTest, StrictRefusals) {
  const std::vector<Refusal> cases = {
      {"not JSON", "{not json", "not valid JSON"},
      {"empty input", "", "not valid JSON"},
      {"truncated", Text(PlanToJson(FullPlan())).substr(0, 40), "not valid JSON"},
      {"array document", "[]", "must be an object"},
      {"string document", "\"plan\"", "must be an object"},
      {"null document", "null", "must be an object"},
      {"missing schema", Edited([](json& d) { d.erase("schema"); }), "\"schema\" is missing"},
      {"wrong schema", Edited([](json& d) { d["schema"] = "rocmtune.plan.v2"; }), "rocmtune.plan.v2"},
      {"schema not a string", Edited([](json& d) { d["schema"] = 1; }), "must be a string"},
      {"missing intent", Edited([](json& d) { d.erase("intent"); }), "intent"},
      {"intent not an object", Edited([](json& d) { d["intent"] = "set"; }), "intent"},
      {"intent without verb", Edited([](json& d) { d["intent"].erase("verb"); }), "\"verb\" is missing"},
      {"intent args not strings", Edited([](json& d) { d["intent"]["args"] = json::array({1}); }), "only strings"},
      {"intent args not array", Edited([](json& d) { d["intent"]["args"] = "x"; }), "must be an array"},
      {"missing ops", Edited([](json& d) { d.erase("ops"); }), "\"ops\" must be an array"},
      {"ops not an array", Edited([](json& d) { d["ops"] = json::object(); }), "\"ops\" must be an array"},
      {"op not an object", Edited([](json& d) { d["ops"][2] = "write"; }), "op 2"},
      {"op without kind", Edited([](json& d) { d["ops"][1].erase("kind"); }), "op 1: \"kind\" is missing"},
      {"unknown kind", Edited([](json& d) { d["ops"][0]["kind"] = "chmod"; }), "unknown op kind \"chmod\""},
      {"kind not a string", Edited([](json& d) { d["ops"][0]["kind"] = 0; }), "op 0: \"kind\" must be a string"},
      {"op without path", Edited([](json& d) { d["ops"][3].erase("path"); }), "op 3: \"path\" is missing"},
      {"path not a string", Edited([](json& d) { d["ops"][3]["path"] = json::array(); }), "must be a string"},
      {"op without backend", Edited([](json& d) { d["ops"][0].erase("backend"); }), "\"backend\" is missing"},
      {"unknown backend", Edited([](json& d) { d["ops"][0]["backend"] = "systemd"; }),
       "op 0: unknown backend \"systemd\""},
      {"unknown regenerator", Edited([](json& d) { d["ops"][6]["path"] = "update-initramfs"; }),
       "op 6: \"update-initramfs\" is not a regenerator rocmtune knows"},
      {"argv with a number", Edited([](json& d) {
         d["ops"][6]["argv"] = json::array({"x", 2});
       }),
       "only strings"},
      {"before a number", Edited([](json& d) { d["ops"][0]["before"] = 5; }), "op 0 before"},
      {"after bad base64", Edited([](json& d) {
         d["ops"][1]["after"] = {{"base64", "%%%"}};
       }),
       "op 1 after"},
      {"reboot_required a string", Edited([](json& d) { d["reboot_required"] = "yes"; }), "reboot_required"},
      {"unknown initramfs state", Edited([](json& d) { d["initramfs"] = "maybe"; }), "maybe"},
      {"bootloader not a string", Edited([](json& d) { d["bootloader"] = true; }), "must be a string"},
      {"warnings not an array", Edited([](json& d) { d["warnings"] = "w"; }), "\"warnings\" must be an array"},
      {"refused entry not an object", Edited([](json& d) { d["refused"] = json::array({"no"}); }), "objects"},
      {"conflict without message", Edited([](json& d) { d["conflicts"][0].erase("message"); }),
       "\"message\" is missing"},
  };
  for (const Refusal& c : cases) {
    auto p = PlanFromJson(c.text);
    ASSERT_FALSE(p) << c.name;
    EXPECT_EQ(p.error().code, ErrorCode::kInvalidData) << c.name;
    EXPECT_NE(p.error().message.find(c.says), std::string::npos) << c.name << ": " << p.error().message;
  }
}

// What an op does decides what it must carry: the executor writes *op.after for a write and
// runs argv[0] for a regenerator, so a plan (untrusted, from stdin) that lacks them is refused.
TEST(PlanJsonTest, EachOpKindCarriesWhatItNeeds) {
  const std::vector<Refusal> cases = {
      {"write without after", Edited([](json& d) { d["ops"][0]["after"] = nullptr; }), "op 0"},
      {"write with after missing", Edited([](json& d) { d["ops"][1].erase("after"); }), "op 1"},
      {"sysfs-write without after", Edited([](json& d) { d["ops"][4]["after"] = nullptr; }), "op 4"},
      {"remove with an after", Edited([](json& d) { d["ops"][2]["after"] = "x"; }), "op 2"},
      {"regenerate without argv", Edited([](json& d) { d["ops"][6]["argv"] = json::array(); }), "op 6"},
      {"regenerate with argv missing", Edited([](json& d) { d["ops"][6].erase("argv"); }), "op 6"},
  };
  for (const Refusal& c : cases) {
    auto p = PlanFromJson(c.text);
    ASSERT_FALSE(p) << c.name;
    EXPECT_EQ(p.error().code, ErrorCode::kInvalidData) << c.name;
    EXPECT_NE(p.error().message.find(c.says), std::string::npos) << c.name << ": " << p.error().message;
  }
  // An empty file is content, not absence: a write of "" is fine.
  EXPECT_TRUE(PlanFromJson(Edited([](json& d) { d["ops"][0]["after"] = ""; })));
}

TEST(PlanJsonTest, OversizeIsRefusedBeforeParsing) {
  std::string text = Text(PlanToJson(FullPlan()));
  // Valid JSON that is too big: trailing whitespace keeps it one document.
  std::string big = text + std::string(kMaxPlanBytes - text.size() + 1, ' ');
  auto p = PlanFromJson(big);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::kTooLarge);
  // Exactly at the limit it is still read.
  std::string at_limit = text + std::string(kMaxPlanBytes - text.size(), ' ');
  EXPECT_TRUE(PlanFromJson(at_limit)) << "a plan of exactly kMaxPlanBytes is allowed";
}

TEST(PlanJsonTest, OpFromJsonRefusesANonObject) {
  for (const json& j : {json(nullptr), json(1), json::array(), json("write")}) {
    auto op = OpFromJson(j, 7);
    ASSERT_FALSE(op) << j.dump();
    EXPECT_NE(op.error().message.find("op 7"), std::string::npos) << op.error().message;
  }
}

// What the helper reads on stdin may nest arbitrarily: 5,000 levels crashed it under ASan
// (copying a subtree recursed once per level). Refused before nlohmann parses it.
TEST(PlanJsonTest, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  std::string in_args = Edited([](json& d) { d["intent"]["args"] = "DEEP"; });
  in_args.replace(in_args.find("\"DEEP\""), 6, deep);
  std::string in_before = Edited([](json& d) { d["ops"][0]["before"] = "DEEP"; });
  in_before.replace(in_before.find("\"DEEP\""), 6, deep);
  for (const std::string& text : {deep, in_args, in_before, std::string(5000, '{')}) {
    Result<Plan> p = tl::unexpected(Error{});
    ASSERT_NO_THROW(p = PlanFromJson(text));
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code, ErrorCode::kInvalidData);
    EXPECT_EQ(p.error().message, "plan: nests deeper than 32 levels");
  }
  // The plans rocmtune makes are far from the limit.
  EXPECT_TRUE(PlanFromJson(Text(PlanToJson(FullPlan()))));
}

}  // namespace
}  // namespace rocmtune::plan

namespace rocmtune::plan {
namespace {

// Both ends of the helper's pipe share one enum: every status has one name, and the name reads back.
TEST(HelperStatusTest, EveryStatusHasANameThatReadsBack) {
  std::set<std::string_view> names;
  for (HelperStatus s : {HelperStatus::kCommitted, HelperStatus::kUnchanged, HelperStatus::kRefused,
                         HelperStatus::kConflict, HelperStatus::kBusy, HelperStatus::kFailed}) {
    std::string_view name = HelperStatusName(s);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(ParseHelperStatus(name), s) << name;
  }
  EXPECT_EQ(ParseHelperStatus("Committed"), std::nullopt);
  EXPECT_EQ(ParseHelperStatus(""), std::nullopt);
}

}  // namespace
}  // namespace rocmtune::plan
