// The export's renderers on reports made here: Kubernetes' label rules, Prometheus' escaping and
// one block per family, with the hostile names a sysfs capture can carry (quotes, a line feed,
// control bytes, a name longer than a label may be).
#include "api/export.h"

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "plan/publish.h"
#include "util/json_text.h"

namespace rocmtune::api {
namespace {

TEST(ExportLabelsTest, ValuesFollowKubernetesRules) {
  EXPECT_TRUE(IsLabelValue(""));
  EXPECT_TRUE(IsLabelValue("gfx1030"));
  EXPECT_TRUE(IsLabelValue("6.2.4"));
  EXPECT_FALSE(IsLabelValue("-a"));
  EXPECT_FALSE(IsLabelValue("a_"));
  EXPECT_FALSE(IsLabelValue("a b"));
  EXPECT_FALSE(IsLabelValue(std::string(64, 'a')));
  EXPECT_TRUE(IsLabelValue(std::string(63, 'a')));
  EXPECT_FALSE(IsLabelName(""));
  EXPECT_EQ(LabelValue("AMD Radeon RX 6900 XT"), "AMD-Radeon-RX-6900-XT");
  EXPECT_EQ(LabelValue(" (x) "), "x");
  EXPECT_EQ(LabelValue(std::string(70, 'b') + "-"), std::string(63, 'b'));
  EXPECT_EQ(LabelValue("--__.."), std::nullopt);
  EXPECT_EQ(LabelValue(""), "");
}

ExportReport Hostile() {
  ExportReport r;
  r.version = "0.1.0";
  detect::Gpu g;
  g.id = "0000:03:00.0";
  g.marketing_name = std::string("Bad \"GPU\"\\\nname\x01") + std::string(1, '\0');  // and a NUL byte
  g.gfx_target = "gfx1100";
  r.assessment.inventory.gpus.push_back(g);
  r.assessment.active_profile = "rdna3-safe";
  for (const std::string& w : ExportWorkloads()) {
    r.safe[w] = false;
    r.state[w] = diagnose::State::kUnsafe;
  }
  ExportGpu eg;
  eg.gpu = g;
  eg.usable = true;
  for (const std::string& w : ExportWorkloads()) {
    eg.safe[w] = w != "conv";
    eg.state[w] = w != "conv" ? diagnose::State::kSafe : diagnose::State::kUnsafe;
  }
  r.gpus.push_back(eg);
  for (const std::string& s : ExportSeverities()) r.findings[s] = 0;
  r.journal_known = false;
  detect::Finding f;
  f.id = "env.override-other-isa";
  f.severity = detect::Severity::kError;
  f.gpu = g.id;
  r.assessment.findings = {f, f};  // the same id twice: one series of value 2
  r.findings["error"] = 2;
  return r;
}

TEST(ExportPrometheusTest, EscapesLabelValuesAndGroupsFamilies) {
  std::string text = PrometheusText(Hostile());
  EXPECT_NE(text.find(R"(name="Bad \"GPU\"\\\nname??")"), std::string::npos) << text;
  // Every sample line is NAME{LABELS} VALUE with an integer value; every family once, HELP then TYPE.
  const std::regex sample(R"(^[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? [0-9]+$)");
  std::set<std::string> families;
  std::string last;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# HELP ", 0) == 0) {
      std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(families.insert(name).second) << name << " has two blocks";
      last = name;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      EXPECT_EQ(line.rfind("# TYPE " + last + " ", 0), 0u) << line;
      continue;
    }
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
    EXPECT_EQ(line.rfind(last, 0), 0u) << line << " outside its family " << last;
  }
  EXPECT_NE(text.find("rocmtune_finding{id=\"env.override-other-isa\",severity=\"error\",gpu=\"0000:03:00.0\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("rocmtune_gpu_compute_safe{gpu=\"0000:03:00.0\",workload=\"conv\"} 0"), std::string::npos);
  // The state as a label: one series per GPU and workload, the state it is in.
  EXPECT_NE(text.find("rocmtune_gpu_compute_state{gpu=\"0000:03:00.0\",workload=\"conv\",state=\"unsafe\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("rocmtune_gpu_compute_state{gpu=\"0000:03:00.0\",workload=\"gemm\",state=\"safe\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("rocmtune_compute_state{workload=\"conv\",state=\"unsafe\"} 1"), std::string::npos);
  EXPECT_NE(text.find("rocmtune_journal_readable 0"), std::string::npos);
  EXPECT_EQ(text.find("rocmtune_in_effect"), std::string::npos) << "a journal not read has no verdict";
}

TEST(ExportNfdTest, ExpiryFirstAndEveryLabelValid) {
  ExportReport r = Hostile();
  NfdOptions options;
  options.expiry = std::chrono::minutes(5);
  auto now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 27} + std::chrono::hours(10);
  std::string text = NfdText(r, options, now);
  std::istringstream in(text);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line.rfind("# ", 0), 0u);
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "# +expiry-time=2026-11-27T10:05:00Z");
  std::set<std::string> names;
  while (std::getline(in, line)) {
    ASSERT_EQ(line.rfind("rocmtune.org/", 0), 0u) << line;
    size_t eq = line.find('=');
    ASSERT_NE(eq, std::string::npos) << line;
    std::string name = line.substr(13, eq - 13), value = line.substr(eq + 1);
    EXPECT_TRUE(IsLabelName(name)) << line;
    EXPECT_TRUE(IsLabelValue(value)) << line;
    EXPECT_TRUE(names.insert(name).second) << line << " twice";
  }
  EXPECT_TRUE(names.count("compute-safe.conv"));
  EXPECT_NE(text.find("rocmtune.org/compute-state.conv=unsafe"), std::string::npos);
  EXPECT_NE(text.find("rocmtune.org/compute-safe.gemm=false"), std::string::npos) << "no GPU verdict: not safe";
  EXPECT_NE(text.find("rocmtune.org/gpus-safe.gemm=1"), std::string::npos);
  EXPECT_NE(text.find("rocmtune.org/profile=rdna3-safe"), std::string::npos);
  EXPECT_NE(text.find("rocmtune.org/gfx1100=1"), std::string::npos);
  EXPECT_EQ(text.find("rocmtune.org/in-effect"), std::string::npos) << "a journal not read has no verdict";
  EXPECT_LT(text.size(), plan::Row(plan::ExportFormat::kNfd).max_bytes);
}

// Every format of the one table (plan/export_format.h) has its renderer, and what a published one
// renders passes the helper's rule for it (the same row's line rule, limit and "ours" prefix).
TEST(ExportFormatTable, EveryFormatRendersAndPublishedOnesPassTheHelpersRule) {
  ExportReport r = Hostile();
  plan::ExportConfig config;
  auto now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 27};
  std::set<std::string_view> names;
  for (const plan::ExportFormatRow& row : plan::ExportFormats()) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_TRUE(names.insert(row.name).second) << "twice";
    EXPECT_EQ(plan::ParseExportFormat(row.name), row.format);
    ASSERT_TRUE(HasRenderer(row.format));
    std::string text = RenderExport(row.format, r, config, now);
    ASSERT_FALSE(text.empty());
    if (!row.Published()) continue;
    EXPECT_TRUE(text.starts_with(row.ours)) << "the helper would not remove it once disabled";
    EXPECT_FALSE(row.engine.empty());
    auto ok = plan::CheckPublishContent(config, {row.format, text});
    EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
    EXPECT_EQ(config.Target(row.format).Path(), std::string(row.directory.substr(1)) + "/" + std::string(row.file));
  }
  EXPECT_EQ(plan::ParseExportFormat("csv"), std::nullopt);
}

// `rocmtunectl export --json` printed PrintJson(ExportJson): the json row prints the same bytes.
TEST(ExportFormatTable, JsonIsTheDocumentAsPrintedBefore) {
  ExportReport r = Hostile();
  EXPECT_EQ(RenderExport(plan::ExportFormat::kJson, r, {}, {}), JsonText(ExportJson(r)) + "\n");
  // Printed only: no publish target, and the helper refuses it by name.
  EXPECT_FALSE(plan::Row(plan::ExportFormat::kJson).Published());
  auto refused =
      plan::ParsePublishRequest(R"({"schema":"rocmtune.publish.v1","files":[{"format":"json","content":"{}\n"}]})");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("unknown format 'json'"), std::string::npos) << refused.error().message;
}

ExportReport WithDifferences(std::vector<DifferenceKind> kinds) {
  ExportReport r = Hostile();
  r.journal_known = true;
  for (const std::string& s : TransactionStates()) r.transactions[s] = 0;
  r.verify = VerifyReport{};
  for (DifferenceKind k : kinds) r.verify->differences.push_back({k, "/x", std::nullopt, std::nullopt, "m"});
  return r;
}

// Every kind of verify's table is counted in every format, 0 included; "initramfs" was left out
// of the export's list: absent from the JSON until it happened and never a Prometheus series.
TEST(ExportVerifyKinds, EveryKindOfTheTableIsCountedInEveryFormat) {
  std::vector<DifferenceKind> all;
  for (const DifferenceKindRow& row : DifferenceKinds()) all.push_back(row.kind);
  ExportReport none = WithDifferences({});
  nlohmann::json doc = nlohmann::json::parse(JsonText(ExportJson(none)));
  ExportReport each = WithDifferences(all);
  nlohmann::json counted = nlohmann::json::parse(JsonText(ExportJson(each)));
  std::string prom = PrometheusText(each);
  for (const DifferenceKindRow& row : DifferenceKinds()) {
    std::string name(row.name);
    EXPECT_EQ(doc["differences"].value(name, -1), 0) << name;
    EXPECT_EQ(counted["differences"].value(name, -1), 1) << name;
    EXPECT_NE(prom.find("rocmtune_verify_differences{kind=\"" + name + "\"} 1"), std::string::npos) << name;
  }
  EXPECT_EQ(doc["differences"].size(), DifferenceKinds().size());
}

// NFD's drift label: a file or attribute someone else changed (the table's changed_by_others), not
// a difference rocmtune itself is waiting on.
TEST(ExportVerifyKinds, NfdDriftOnlyForChangesBySomeoneElse) {
  auto now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 27};
  EXPECT_NE(NfdText(WithDifferences({DifferenceKind::kInitramfs, DifferenceKind::kPendingReboot}), {}, now)
                .find("rocmtune.org/drift=false"),
            std::string::npos);
  EXPECT_NE(NfdText(WithDifferences({DifferenceKind::kSysfs}), {}, now).find("rocmtune.org/drift=true"),
            std::string::npos);
  EXPECT_NE(NfdText(WithDifferences({DifferenceKind::kDrift}), {}, now).find("rocmtune.org/drift=true"),
            std::string::npos);
}

// The journal's kinds are verify's kinds of the same name (status's findings `journal.<name>`).
TEST(ExportVerifyKinds, JournalAttentionKindsMapToTheirRows) {
  for (journal::AttentionKind k : {journal::AttentionKind::kInterrupted, journal::AttentionKind::kPendingRegeneration,
                                   journal::AttentionKind::kLeftoverTemporary})
    EXPECT_EQ(DifferenceKindName(DifferenceKindOf(k)), journal::AttentionKindName(k));
  std::set<std::string_view> names;
  for (const DifferenceKindRow& row : DifferenceKinds()) EXPECT_TRUE(names.insert(row.name).second) << row.name;
}

}  // namespace
}  // namespace rocmtune::api
