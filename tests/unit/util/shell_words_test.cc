#include "util/shell_words.h"

#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rocmtune::shell {
namespace {

// What /bin/sh assigns for `X=<word>` (set -f: no globbing, as in an assignment anyway).
std::optional<std::string> ShellValue(const std::string& word) {
  std::string script = "set -f; X=" + word + "\nprintf %s \"$X\"";
  int fds[2];
  if (::pipe(fds) != 0) return std::nullopt;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[256];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

std::optional<std::string> LexedValue(const std::string& word) {
  std::vector<Command> cmds = ParseScript("X=" + word + "\n");
  if (cmds.size() != 1 || !cmds[0].unsupported.empty() || cmds[0].assignments.size() != 1) return std::nullopt;
  return LiteralValue(cmds[0].assignments[0].value);
}

TEST(ShellWordsTest, LiteralValuesAgreeWithBinSh) {
  if (::access("/bin/sh", X_OK) != 0) GTEST_SKIP() << "no /bin/sh to compare with";
  const char* words[] = {
      "plain",
      "\"a b\"",
      "'a b'",
      "\"a \\\"q\\\" b\"",
      "\"back\\\\slash\"",
      "\"keep \\n\"",
      "a\\ b",
      "\"a\"'b'c",
      "\"x #y\"",
      "x#y",
      "'x #y'",
      "\"multi\nline\"",
      "\"con\\\ntinued\"",
      "con\\\ntinued",
      "'it'\\''s'",
      "\"\\$HOME\"",
      "\"a$\"",
      "''",
      "\"tab\there\"",
      "a=b=c",
      "\"%s\"",
      "\\#x",
      "\"\\`\"",
      "'\\\\'",
      "a\\\\b",
  };
  for (const char* word : words) {
    auto expected = ShellValue(word);
    ASSERT_TRUE(expected) << "sh failed on X=" << word;
    EXPECT_EQ(LexedValue(word), expected) << "X=" << word;
  }
}

TEST(ShellWordsTest, ExpansionsAreMarkedNotExpanded) {
  std::vector<Command> cmds = ParseScript("export X=\"$A\"x${B}$(uname -r)\n");
  ASSERT_EQ(cmds.size(), 1u);
  ASSERT_EQ(cmds[0].assignments.size(), 1u);
  const std::vector<Segment>& v = cmds[0].assignments[0].value;
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].kind, Segment::kParam);
  EXPECT_EQ(v[0].text, "A");
  EXPECT_EQ(v[1].kind, Segment::kText);
  EXPECT_EQ(v[1].text, "x");
  EXPECT_EQ(v[2].kind, Segment::kParam);
  EXPECT_EQ(v[2].text, "B");
  EXPECT_EQ(v[3].kind, Segment::kCommand);
  EXPECT_EQ(v[3].text, "$(uname -r)");
  EXPECT_FALSE(LiteralValue(v));
}

TEST(ShellWordsTest, CommandsLinesAndRawValueBytes) {
  std::string src = "# c\nA=1;B='2 3' # x\n\nexport C \\\n  D=\"4\"\n";
  std::vector<Command> cmds = ParseScript(src);
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0].line, 2);
  EXPECT_EQ(cmds[0].assignments[0].name, "A");
  EXPECT_EQ(cmds[1].assignments[0].name, "B");
  EXPECT_EQ(LiteralValue(cmds[1].assignments[0].value), "2 3");
  const Assignment& b = cmds[1].assignments[0];
  EXPECT_EQ(src.substr(b.value_begin, b.value_end - b.value_begin), "'2 3'");
  ASSERT_EQ(cmds[2].assignments.size(), 1u);
  EXPECT_EQ(cmds[2].assignments[0].name, "D");
  EXPECT_EQ(cmds[2].assignments[0].line, 5);
  for (const Command& c : cmds) EXPECT_EQ(c.unsupported, "") << c.line;
}

TEST(ShellWordsTest, WhatIsNotModelledIsReportedWithWhereItStopped) {
  struct Case {
    const char* src;
    size_t assignments;
    bool last_complete;
  } cases[] = {
      {"A=${B:-x}\n", 1, false},  // the value needs the shell
      {"A=1 true\n", 1, true},    // an assignment for one command only
      {"if true; then A=1; fi\n", 0, true},
      {"A=$((1+1))\n", 1, false},
      {"A=~/x\n", 1, false},  // tilde expansion
      {"echo A=1\n", 0, true},
  };
  for (const Case& c : cases) {
    std::vector<Command> cmds = ParseScript(c.src);
    ASSERT_FALSE(cmds.empty()) << c.src;
    EXPECT_NE(cmds[0].unsupported, "") << c.src;
    ASSERT_EQ(cmds[0].assignments.size(), c.assignments) << c.src;
    if (c.assignments) {
      EXPECT_EQ(cmds[0].assignments.back().complete, c.last_complete) << c.src;
    }
  }
  // An unterminated quote ends the reading: nothing after it can be trusted.
  std::vector<Command> cmds = ParseScript("A=\"x\nB=1\n");
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_NE(cmds[0].unsupported, "");
  // After another unsupported command, the next line is read again.
  cmds = ParseScript("echo hi\nB=1\n");
  ASSERT_EQ(cmds.size(), 2u);
  EXPECT_EQ(LiteralValue(cmds[1].assignments[0].value), "1");
}

}  // namespace
}  // namespace rocmtune::shell
