// rocmtune-helper's publish: only what /etc/rocmtune/export.toml enables, only content of the
// export's shape, only the two fixed names, never through a symlink; a disabled target loses the
// file rocmtune wrote and nobody else's; the admin's bad config and a hostile request lose nothing.
#include "helper/publish.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "helper/file_writer.h"
#include "plan/publish.h"
#include "test_tree.h"

namespace rocmtune::helper {
namespace {

constexpr const char* kProm = "# HELP rocmtune_info v\n# TYPE rocmtune_info gauge\nrocmtune_info{version=\"1\"} 1\n";
constexpr const char* kNfd = "# rocmtune 1\n# +expiry-time=2026-11-27T10:00:00Z\nrocmtune.org/gpus=1\n";
constexpr const char* kPromPath = "var/lib/prometheus/node-exporter/rocmtune.prom";
constexpr const char* kNfdPath = "etc/kubernetes/node-feature-discovery/features.d/rocmtune";

std::string Request(const std::vector<plan::PublishFile>& files) { return plan::PublishRequestJson(files).dump(); }

class PublishTest : public ::testing::Test {
 protected:
  PublishTest() {
    tree_.Mkdir("var/lib/rocmtune");
    tree_.Mkdir("var/lib/prometheus/node-exporter");
    tree_.Mkdir("etc/kubernetes/node-feature-discovery/features.d");
    Config("[prometheus]\nenabled = true\n[nfd]\nenabled = true\n");
  }
  void Config(const std::string& text) { tree_.Write("etc/rocmtune/export.toml", text); }
  Outcome Run(const std::string& request) {
    auto root = sys::Root::Open(tree_.path());
    EXPECT_TRUE(root);
    return Publish(*root, hooks_, request, true);
  }
  bool Exists(const std::string& rel) const { return std::filesystem::exists(tree_.Path(rel)); }
  std::string Message(const Outcome& out) const { return out.messages.empty() ? "" : out.messages.front(); }
  testing::TestTree tree_;
  NoHooks hooks_;
};

TEST_F(PublishTest, WritesBothEnabledFilesAtomically) {
  Outcome out = Run(Request({{plan::ExportFormat::kPrometheus, kProm}, {plan::ExportFormat::kNfd, kNfd}}));
  ASSERT_EQ(out.status, Status::kCommitted) << Message(out);
  EXPECT_EQ(out.messages.size(), 2u);
  EXPECT_TRUE(Exists(kPromPath));
  EXPECT_TRUE(Exists(kNfdPath));
  EXPECT_EQ(std::filesystem::status(tree_.Path(kPromPath)).permissions() & std::filesystem::perms::all,
            std::filesystem::perms(0644));
  for (const auto& e : std::filesystem::directory_iterator(tree_.Path("var/lib/prometheus/node-exporter")))
    EXPECT_EQ(e.path().filename(), "rocmtune.prom") << "a temporary was left";
}

// A publish killed after its temporary was made (the helper has no journal for it): the next
// publish replaces the leftover, and a reader never sees the half-written text.
TEST_F(PublishTest, AKilledPublishsTemporaryIsReplacedByTheNext) {
  ASSERT_EQ(Run(Request({{plan::ExportFormat::kPrometheus, kProm}})).status, Status::kCommitted);
  const std::string tmp = FileWriter::TemporaryName(kPromPath);
  tree_.Write(tmp, "# HELP rocmtune_info cut sho");
  std::ifstream before(tree_.Path(kPromPath));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(before), {}), kProm) << "the reader saw the leftover";
  Outcome out = Run(Request({{plan::ExportFormat::kPrometheus, kProm}}));
  EXPECT_EQ(out.status, Status::kCommitted) << Message(out);
  EXPECT_FALSE(Exists(tmp)) << "the leftover temporary stayed";
  std::ifstream after(tree_.Path(kPromPath));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(after), {}), kProm);
}

TEST_F(PublishTest, RefusesWhatTheAllowListDoesNotName) {
  struct Case {
    const char* what;
    std::string request;
    const char* message;
  } cases[] = {
      {"another metric", Request({{plan::ExportFormat::kPrometheus, "node_load1 1\n"}}), "rocmtune_ metric"},
      {"a timestamp", Request({{plan::ExportFormat::kPrometheus, "rocmtune_gpus 1 1700000000\n"}}), "line 1"},
      {"a NUL byte", Request({{plan::ExportFormat::kPrometheus, std::string("rocmtune_gpus 1\n\0\n", 18)}}),
       "control byte"},
      {"no final newline", Request({{plan::ExportFormat::kPrometheus, "rocmtune_gpus 1"}}), "newline"},
      {"a label of another namespace", Request({{plan::ExportFormat::kNfd, "amd.com/gpu.family=AI\n"}}),
       "rocmtune.org/NAME=VALUE"},
      {"a bad label value", Request({{plan::ExportFormat::kNfd, "rocmtune.org/x=a b\n"}}), "line 1"},
      {"too large", Request({{plan::ExportFormat::kNfd, std::string(70000, '#') + "\n"}}), "limit"},
      {"twice", Request({{plan::ExportFormat::kNfd, kNfd}, {plan::ExportFormat::kNfd, kNfd}}), "twice"},
      {"an unknown format", R"({"schema":"rocmtune.publish.v1","files":[{"format":"shell","content":"x\n"}]})",
       "unknown format"},
      {"a path", R"({"schema":"rocmtune.publish.v1","files":[{"format":"nfd","content":"#\n","path":"/etc/x"}]})",
       "{format, content}"},
      {"not JSON", "rm -rf /", "publish request"},
  };
  for (const Case& c : cases) {
    Outcome out = Run(c.request);
    EXPECT_EQ(out.status, Status::kRefused) << c.what;
    EXPECT_NE(Message(out).find(c.message), std::string::npos) << c.what << ": " << Message(out);
  }
  EXPECT_FALSE(Exists(kPromPath));
  EXPECT_FALSE(Exists(kNfdPath));
}

TEST_F(PublishTest, ADisabledTargetIsRefusedAndLosesOnlyRocmtunesFile) {
  ASSERT_EQ(Run(Request({{plan::ExportFormat::kPrometheus, kProm}})).status, Status::kCommitted);
  tree_.Write(kNfdPath, "someone.else/x=1\n");  // not rocmtune's: stays
  Config("[prometheus]\nenabled = false\n[nfd]\nenabled = false\n");
  Outcome refused = Run(Request({{plan::ExportFormat::kPrometheus, kProm}}));
  EXPECT_EQ(refused.status, Status::kRefused);
  EXPECT_NE(Message(refused).find("not enabled"), std::string::npos) << Message(refused);
  EXPECT_TRUE(Exists(kPromPath)) << "a refused request removes nothing";
  Outcome cleanup = Run(Request({}));
  EXPECT_EQ(cleanup.status, Status::kCommitted) << Message(cleanup);
  EXPECT_FALSE(Exists(kPromPath));
  EXPECT_TRUE(Exists(kNfdPath));
  EXPECT_EQ(Run(Request({})).status, Status::kUnchanged);
}

TEST_F(PublishTest, TheAdminsBadConfigIsNamedAndNothingIsWritten) {
  for (const char* text :
       {"[prometheus]\nenabled = true\ndirectory = \"relative/dir\"\n",
        "[prometheus]\nenabled = true\ndirectory = \"/var/lib/../../etc\"\n",
        "[nfd]\nenabled = true\nnamespace = \"node.kubernetes.io\"\n", "[nfd]\nenabled = true\nexpiry_minutes = 0\n",
        "[nfd]\nenabled = \"yes\"\n", "[grafana]\nenabled = true\n", "[prometheus\n"}) {
    Config(text);
    Outcome out = Run(Request({{plan::ExportFormat::kPrometheus, kProm}}));
    EXPECT_EQ(out.status, Status::kRefused) << text;
    EXPECT_NE(Message(out).find("export.toml"), std::string::npos) << text << ": " << Message(out);
  }
  EXPECT_FALSE(Exists(kPromPath));
}

TEST_F(PublishTest, AMissingOrSymlinkedDirectoryIsNotWrittenThrough) {
  std::filesystem::remove_all(tree_.Path("var/lib/prometheus"));
  Outcome missing = Run(Request({{plan::ExportFormat::kPrometheus, kProm}}));
  EXPECT_EQ(missing.status, Status::kFailed);
  EXPECT_NE(Message(missing).find("node_exporter installed"), std::string::npos) << Message(missing);
  tree_.Mkdir("elsewhere");
  tree_.Mkdir("var/lib/prometheus");
  tree_.Symlink("var/lib/prometheus/node-exporter", "../../../elsewhere");
  Outcome linked = Run(Request({{plan::ExportFormat::kPrometheus, kProm}}));
  EXPECT_NE(linked.status, Status::kCommitted);
  EXPECT_FALSE(Exists("elsewhere/rocmtune.prom")) << "written through a symlink";
}

TEST_F(PublishTest, ConfiguredDirectoriesAndNamespaceAreUsed) {
  tree_.Mkdir("srv/textfiles");
  Config(
      "[prometheus]\nenabled = true\ndirectory = \"/srv/textfiles\"\n[nfd]\nenabled = true\nnamespace = "
      "\"gpu.example.com\"\n");
  EXPECT_EQ(Run(Request({{plan::ExportFormat::kNfd, kNfd}})).status, Status::kRefused) << "rocmtune.org/ now";
  Outcome out = Run(Request({{plan::ExportFormat::kPrometheus, kProm},
                             {plan::ExportFormat::kNfd, "# rocmtune 1\ngpu.example.com/gpus=1\n"}}));
  EXPECT_EQ(out.status, Status::kCommitted) << Message(out);
  EXPECT_TRUE(Exists("srv/textfiles/rocmtune.prom"));
  EXPECT_FALSE(Exists(kPromPath));
}

// export.toml names the directories root writes into: a file or a /etc/rocmtune that someone
// else owns or may write is refused, naming the file and the rule, and nothing is written
// (profile_store_test.cc's UntrustedAdminFilesAreNotUsed, the same rule: sys/trusted_config.h).
TEST_F(PublishTest, AnExportConfigRootDoesNotOwnIsRefused) {
  const std::string request = Request({{plan::ExportFormat::kPrometheus, kProm}});
  tree_.Chmod("etc/rocmtune/export.toml", 0664);
  Outcome group = Run(request);
  EXPECT_EQ(group.status, Status::kRefused);
  EXPECT_NE(Message(group).find("etc/rocmtune/export.toml: not used: group or others may write it (mode 0664)"),
            std::string::npos)
      << Message(group);
  tree_.Chmod("etc/rocmtune/export.toml", 0646);
  EXPECT_EQ(Run(request).status, Status::kRefused) << "world-writable";
  tree_.Chmod("etc/rocmtune/export.toml", 0644);
  tree_.Chmod("etc/rocmtune", 0777);
  Outcome dir = Run(request);
  EXPECT_EQ(dir.status, Status::kRefused);
  EXPECT_NE(Message(dir).find("etc/rocmtune: not used: group or others may write it"), std::string::npos)
      << Message(dir);
  tree_.Chmod("etc/rocmtune", 0755);
  EXPECT_FALSE(Exists(kPromPath));
  bool file_chowned = ::chown(tree_.Path("etc/rocmtune/export.toml").c_str(), 1000, 1000) == 0;
  if (!file_chowned) GTEST_SKIP() << "cannot chown to uid 1000 here (not root): the owner rule is untested";
  Outcome theirs = Run(request);
  EXPECT_EQ(theirs.status, Status::kRefused);
  EXPECT_NE(Message(theirs).find("etc/rocmtune/export.toml: not used: owned by uid 1000, not root (it names "
                                 "directories root writes into"),
            std::string::npos)
      << Message(theirs);
  ASSERT_EQ(::chown(tree_.Path("etc/rocmtune/export.toml").c_str(), ::getuid(), ::getgid()), 0);
  ASSERT_EQ(::chown(tree_.Path("etc/rocmtune").c_str(), 1000, 1000), 0);
  Outcome their_dir = Run(request);
  EXPECT_EQ(their_dir.status, Status::kRefused);
  EXPECT_NE(Message(their_dir).find("etc/rocmtune: not used: owned by uid 1000, not root"), std::string::npos)
      << Message(their_dir);
  EXPECT_FALSE(Exists(kPromPath)) << "nothing is written on an untrusted config";
  ASSERT_EQ(::chown(tree_.Path("etc/rocmtune").c_str(), ::getuid(), ::getgid()), 0);
  EXPECT_EQ(Run(request).status, Status::kCommitted) << "root's own 0644 file in a 0755 directory works";
}

}  // namespace
}  // namespace rocmtune::helper
