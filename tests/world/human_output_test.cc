// Human output is not a terminal channel: what rocmtunectl prints for people quotes
// files anyone with root once edited (a grub comment, /etc/environment, modprobe.d, a site
// profile), and a raw ESC, BEL or CSI there would retitle the terminal, clear it or forge lines.
// Every such byte is shown escaped; --json keeps the text, escaped the JSON way.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

using ::testing::HasSubstr;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

// Set the window title, then clear the screen: the sequence seen in a /etc/default/grub comment.
constexpr std::string_view kEvil = "\x1b]0;owned\x07\x1b[2J";
constexpr std::string_view kEvilShown = "\\x1b]0;owned\\x07\\x1b[2J";

std::string TerminalBytes(const std::string& text) {
  std::string found;
  for (unsigned char c : text)
    if (c == 0x1b || c == 0x07 || c == 0x9b) found += fmt::format(" 0x{:02x}", c);
  return found;
}

class HumanOutputTest : public ::testing::Test {
 protected:
  HumanOutputTest() : w_("rx5700xt") {
    std::string evil(kEvil);
    std::string grub = w_.Read("etc/default/grub");
    std::string line = "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"";
    grub.replace(grub.find(line), line.size(),
                 "# tuned by hand " + evil + "\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash amd_iommu=on" + evil + "\"");
    w_.Write("etc/default/grub", grub);
    w_.Write("etc/modprobe.d/local.conf", "# " + evil + "\noptions amdgpu noretry=0" + evil + "\n");
    w_.Write("etc/environment", "HIP_VISIBLE_DEVICES=0" + evil + "\n");
    // rocmtune's own file, edited by hand: its diff shows the edit.
    w_.Write("etc/modprobe.d/rocmtune.conf", "# note " + evil + "\noptions amdgpu noretry=1\n");
    // TOML has no raw control characters; its \u escapes make them (U+009B is the 8-bit CSI).
    w_.Write("etc/rocmtune/profiles/site.toml",
             "schema_version = 1\ndescription = \"site\"\n[[items]]\nid = \"n\"\naction = \"note\"\n"
             "why = \"read this \\u001b]0;owned\\u0007\\u001b[2J and \\u009b2J\"\nsource = \"here\"\n");
  }

  // Runs a verb in human mode: it must show the sequence (escaped) and send no raw byte of it.
  std::string Human(const std::vector<std::string>& args) {
    auto r = w_.Ctl(args);
    EXPECT_THAT(std::vector<int>({kExitOk, kExitVerifyDiffers}), ::testing::Contains(r.exit_code)) << r.out << r.err;
    EXPECT_EQ(TerminalBytes(r.out), "") << args[0] << " stdout:\n" << r.out;
    EXPECT_EQ(TerminalBytes(r.err), "") << args[0] << " stderr:\n" << r.err;
    return r.out + r.err;
  }

  WorldCopy w_;
};

TEST_F(HumanOutputTest, StatusEscapesModprobeAndEnvironmentValues) {
  std::string out = Human({"status"});
  EXPECT_THAT(out, HasSubstr("0" + std::string(kEvilShown))) << "the value is shown, escaped";
  // Columns are measured on the text as shown, so the table stays aligned.
  size_t header = out.rfind('\n', out.find("KNOB ")) + 1;
  size_t row = out.rfind('\n', out.find("env.HIP_VISIBLE_DEVICES")) + 1;
  EXPECT_EQ(out.find("OWNER", header) - header, out.find("admin", row) - row) << out;
}

TEST_F(HumanOutputTest, ExplainEscapesConfiguredValues) {
  EXPECT_THAT(Human({"explain", "amdgpu.noretry"}), HasSubstr(kEvilShown));
  EXPECT_THAT(Human({"explain", "cmdline.amd_iommu"}), HasSubstr("on" + std::string(kEvilShown)));
}

TEST_F(HumanOutputTest, CheckDiffEscapesFileContentButKeepsItsLines) {
  std::string out = Human({"set", "amdgpu.noretry=0", "--check", "--diff", "--force"});
  EXPECT_THAT(out, HasSubstr("-# note " + std::string(kEvilShown) + "\n"));
  EXPECT_THAT(out, HasSubstr("noretry=0" + std::string(kEvilShown)));  // the warning naming local.conf
}

TEST_F(HumanOutputTest, ShowEscapesAProfilesWhyIncludingC1Controls) {
  std::string out = Human({"show", "site"});
  EXPECT_THAT(out, HasSubstr("read this " + std::string(kEvilShown) + " and \\xc2\\x9b2J"));
}

// stdio hands the filter its buffer in pieces that may cut a UTF-8 character in two (a line
// longer than the buffer); the pieces are joined again, not shown as invalid bytes.
TEST_F(HumanOutputTest, LongLinesKeepTheirUtf8Characters) {
  std::string dashes;
  for (int i = 0; i < 5000; ++i) dashes += "\xe2\x80\x93";  // "–"
  w_.Write("etc/environment", "HIP_VISIBLE_DEVICES=" + dashes + "\n");
  std::string out = Human({"status"});
  EXPECT_NE(out.find(dashes), std::string::npos) << "the characters are not shown whole";
  EXPECT_EQ(out.find("\\xe2"), std::string::npos) << "a character cut in two is shown as bytes";
}

TEST_F(HumanOutputTest, JsonKeepsTheTextEscapedTheJsonWay) {
  auto r = w_.Ctl({"status", "--json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  json doc = r.Json();
  ASSERT_TRUE(doc.is_object()) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\\u001b]0;owned\\u0007\\u001b[2J"));
  EXPECT_EQ(TerminalBytes(r.out), "");
  bool found = false;
  for (const json& k : doc["knobs"])
    if (k["key"] == "env.HIP_VISIBLE_DEVICES") found = k["configured"] == "0" + std::string(kEvil);
  EXPECT_TRUE(found) << "the JSON value is the file's text, byte for byte";
}

}  // namespace
}  // namespace rocmtune::client
