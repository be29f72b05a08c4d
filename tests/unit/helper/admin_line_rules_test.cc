// The allow-list's one rule for an admin's file (`--admin-lines`, helper/admin_line_rules.cc):
// exactly one line, setting one variable rocmtune manages and nothing else, turned into its
// commented form; or rocmtune's commented lines put back. Everything else is refused: two lines,
// other bytes, other paths, a symlink, a file another user owns.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "edited.h"
#include "helper/allow_list.h"
#include "helper/allow_list_fixture.h"
#include "plan/admin_lines.h"

namespace rocmtune::helper {
namespace {

constexpr std::string_view kEnvironment =
    "PATH=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\"\n"
    "HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    "ROCR_VISIBLE_DEVICES=0\n";
constexpr std::string_view kCommented =
    "PATH=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\"\n"
    "# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    "ROCR_VISIBLE_DEVICES=0\n";
constexpr std::string_view kScript = "# RDNA1 folklore\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\nexport A=1 B=2\n";

class AdminLineTest : public AllowListTest {
 protected:
  void SetUp() override {
    AllowListTest::SetUp();
    tree_.Write("root/etc/environment", kEnvironment);
    tree_.Write("root/etc/profile.d/rdna1.sh", kScript);
  }
  Op Edit(std::string path, std::string after) const { return File(path, "env", std::move(after), Disk(path)); }
};

TEST_F(AdminLineTest, OneCommentedLineAndItsRestorationPass) {
  EXPECT_TRUE(Check(Edit("etc/environment", std::string(kCommented))));
  EXPECT_TRUE(Check(Edit("etc/profile.d/rdna1.sh",
                         "# RDNA1 folklore\n: # rocmtune unset: export "
                         "HSA_OVERRIDE_GFX_VERSION=10.3.0\nexport A=1 B=2\n")));
  tree_.Write("root/etc/environment", kCommented);
  auto back = Check(Edit("etc/environment", std::string(kEnvironment)));
  EXPECT_TRUE(back) << back.error().message;
}

TEST_F(AdminLineTest, TheAdminsBytesStayWhateverTheyAre) {
  // CRLF, no newline at the end, a NUL on another line: the edit is still one line.
  const std::string odd = std::string("A=\0x\r\nHSA_OVERRIDE_GFX_VERSION=10.3.0\r\nPATH=/bin", 33);
  tree_.Write("root/etc/environment.d/50-odd.conf", odd);
  std::string after = odd;
  after.insert(after.find("HSA_"), "# rocmtune unset: ");
  auto ok = Check(Edit("etc/environment.d/50-odd.conf", after));
  EXPECT_TRUE(ok) << ok.error().message;
}

TEST_F(AdminLineTest, EverythingElseIsRefused) {
  const std::string env(kEnvironment), commented(kCommented);
  Op no_before = Edit("etc/environment", commented);
  no_before.before.reset();
  Op stale = Edit("etc/environment", commented);
  stale.before = commented;
  Op removal = File("etc/environment", "env", std::nullopt, env);
  Op wrong_backend = Edit("etc/environment", commented);
  wrong_backend.backend = plan::BackendId::kModprobe;
  const std::vector<Hostile> cases = {
      {"two lines commented out",
       Edit("etc/environment", "# rocmtune unset: " + commented.substr(0, commented.find('\n') + 1) +
                                   commented.substr(commented.find('\n') + 1)),
       rule::kAdminLine},
      {"a line commented and another changed",
       Edit("etc/environment", testing::Edited(commented, "ROCR_VISIBLE_DEVICES=0", "ROCR_VISIBLE_DEVICES=1")),
       rule::kAdminLine},
      {"a line changed, not commented", Edit("etc/environment", testing::Edited(env, "=10.3.0", "=11.0.0")),
       rule::kAdminLine},
      {"a line removed", Edit("etc/environment", testing::Edited(env, "HSA_OVERRIDE_GFX_VERSION=10.3.0\n", "")),
       rule::kAdminLine},
      {"a line added", Edit("etc/environment", env + "LD_PRELOAD=/tmp/x.so\n"), rule::kAdminLine},
      {"a plain # comment", Edit("etc/environment", testing::Edited(env, "HSA_", "#HSA_")), rule::kAdminLine},
      {"line endings changed", Edit("etc/environment", testing::Edited(commented, "\n", "\r\n")), rule::kAdminLine},
      {"newline added at the end", Edit("etc/environment", commented + "\n"), rule::kAdminLine},
      {"a variable rocmtune does not manage",
       Edit("etc/environment", testing::Edited(env, "PATH=", "# rocmtune unset: PATH=")), rule::kAdminLine},
      {"a line that sets two variables",
       Edit("etc/profile.d/rdna1.sh",
            testing::Edited(std::string(kScript), "export A=1", ": # rocmtune unset: export A=1")),
       rule::kAdminLine},
      {"the list mark in a shell script",
       Edit("etc/profile.d/rdna1.sh",
            testing::Edited(std::string(kScript), "export HSA", "# rocmtune unset: export HSA")),
       rule::kAdminLine},
      {"no before", no_before, rule::kSharedBefore},
      {"stale before", stale, rule::kSharedBefore},
      {"removal", removal, rule::kSharedFileRemoval},
      {"wrong backend", wrong_backend, rule::kBackendMismatch},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

TEST_F(AdminLineTest, OtherPathsAreNotAdminLineFiles) {
  const std::string env(kEnvironment), commented(kCommented);
  for (const std::string path : {"etc/profile", "etc/bash.bashrc", "usr/lib/environment.d/50-x.conf",
                                 "etc/environment.d/sub/x.conf", "etc/environment.d/.hidden.conf",
                                 "etc/profile.d/x.csh", "etc/security/pam_env.conf", "etc/environment.d/x.conf.bak"}) {
    tree_.Write("root/" + path, env);
    ExpectRefused(Check(Edit(path, commented)), {path, {}, rule::kPathNotAllowed});
  }
  // rocmtune's own drop-in keeps its grammar (no PATH there): not an admin file.
  tree_.Write("root/etc/environment.d/90-rocmtune.conf", env);
  EXPECT_FALSE(Check(Edit("etc/environment.d/90-rocmtune.conf", commented)));
}

TEST_F(AdminLineTest, AContinuedLineBelongsToTheLineBefore) {
  // `export A=1 \` + `HSA_...=10.3.0` is one command: commenting out its second line would make
  // the shell export a word ':'.
  const std::string script = "export A=1 \\\n  HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  tree_.Write("root/etc/profile.d/continued.sh", script);
  ExpectRefused(
      Check(Edit("etc/profile.d/continued.sh", testing::Edited(script, "  HSA", ": # rocmtune unset:   HSA"))),
      {"continued line", {}, rule::kAdminLine});
}

TEST_F(AdminLineTest, OnlyVariablesRocmtuneManagesComeBack) {
  // A marked line that never was rocmtune's (written by hand, or a hostile journal's `before`).
  tree_.Write("root/etc/environment.d/30-x.conf", "# rocmtune unset: LD_PRELOAD=/tmp/x.so\n");
  ExpectRefused(Check(Edit("etc/environment.d/30-x.conf", "LD_PRELOAD=/tmp/x.so\n")),
                {"LD_PRELOAD put back", {}, rule::kAdminLine});
}

TEST_F(AdminLineTest, SymlinksAndOtherOwnersAreRefused) {
  tree_.Write("root/etc/real.conf", kEnvironment);
  std::filesystem::create_directories(tree_.Path("root/etc/environment.d"));
  std::filesystem::create_symlink("../real.conf", tree_.Path("root/etc/environment.d/10-link.conf"));
  ExpectRefused(
      Check(File("etc/environment.d/10-link.conf", "env", std::string(kCommented), std::string(kEnvironment))),
      {"symlink", {}, rule::kPathSymlink});
  tree_.Write("root/etc/environment.d/20-user.conf", kEnvironment);
  ASSERT_EQ(chown(tree_.Path("root/etc/environment.d/20-user.conf").c_str(), 4242, 4242), 0);
  ExpectRefused(Check(Edit("etc/environment.d/20-user.conf", std::string(kCommented))),
                {"owned by another user", {}, rule::kAdminLineFile});
}

// An admin's modprobe.d `options` line (module options): one option of amdgpu,
// ttm or amdttm alone on its line is commented out with the list mark and put back; a line that
// sets more, reaches into other lines (a backslash, an unclosed quote) or is another module's
// is refused, and so is a package's directory.
constexpr std::string_view kModprobe =
    "# from a forum\n"
    "options amdgpu mtype_local=1\n"
    "options amdgpu noretry=0 lockup_timeout=10000\n"
    "options snd_hda_intel power_save=0\n";

class AdminModprobeLineTest : public AllowListTest {
 protected:
  void SetUp() override {
    AllowListTest::SetUp();
    tree_.Write("root/etc/modprobe.d/amdgpu-folk.conf", kModprobe);
  }
  Op Edit(std::string after) const {
    const std::string path = "etc/modprobe.d/amdgpu-folk.conf";
    return File(path, "modprobe", std::move(after), Disk(path));
  }
};

TEST_F(AdminModprobeLineTest, OneOptionLineCommentedOutAndPutBackPasses) {
  const std::string modprobe(kModprobe);
  const std::string commented =
      testing::Edited(modprobe, "options amdgpu mtype", "# rocmtune unset: options amdgpu mtype");
  auto ok = Check(Edit(commented));
  EXPECT_TRUE(ok) << ok.error().message;
  tree_.Write("root/etc/modprobe.d/amdgpu-folk.conf", commented);
  auto back = Check(Edit(modprobe));
  EXPECT_TRUE(back) << back.error().message;
  // ttm, CRLF, no final newline: still one line.
  tree_.Write("root/etc/modprobe.d/ttm.conf", "options ttm pages_limit=3145728\r\nblacklist radeon");
  auto ttm = Check(File("etc/modprobe.d/ttm.conf", "modprobe",
                        "# rocmtune unset: options ttm pages_limit=3145728\r\nblacklist radeon",
                        Disk("etc/modprobe.d/ttm.conf")));
  EXPECT_TRUE(ttm) << ttm.error().message;
}

TEST_F(AdminModprobeLineTest, EverythingElseIsRefused) {
  const std::string modprobe(kModprobe);
  Op wrong_backend = Edit(testing::Edited(modprobe, "options amdgpu mtype", "# rocmtune unset: options amdgpu mtype"));
  wrong_backend.backend = plan::BackendId::kEnv;
  const std::vector<Hostile> cases = {
      {"a line that sets two options",
       Edit(testing::Edited(modprobe, "options amdgpu noretry", "# rocmtune unset: options amdgpu noretry")),
       rule::kAdminLine},
      {"another module's line", Edit(testing::Edited(modprobe, "options snd", "# rocmtune unset: options snd")),
       rule::kAdminLine},
      {"a comment commented out", Edit(testing::Edited(modprobe, "# from", "# rocmtune unset: # from")),
       rule::kAdminLine},
      {"an option removed from the line", Edit(testing::Edited(modprobe, " lockup_timeout=10000", "")),
       rule::kAdminLine},
      {"the shell mark",
       Edit(testing::Edited(modprobe, "options amdgpu mtype", ": # rocmtune unset: options amdgpu mtype")),
       rule::kAdminLine},
      {"wrong backend", wrong_backend, rule::kBackendMismatch},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
  // A package's directories and rocmtune's own drop-in are not admin-line files.
  const std::string commented =
      testing::Edited(modprobe, "options amdgpu mtype", "# rocmtune unset: options amdgpu mtype");
  for (const std::string path :
       {"usr/lib/modprobe.d/amdgpu.conf", "lib/modprobe.d/amdgpu.conf", "usr/local/lib/modprobe.d/amdgpu.conf",
        "run/modprobe.d/amdgpu.conf", "etc/modprobe.d/.hidden.conf", "etc/modprobe.d/amdgpu.conf.bak",
        "etc/modprobe.conf"}) {
    tree_.Write("root/" + path, modprobe);
    ExpectRefused(Check(File(path, "modprobe", commented, modprobe)), {path, {}, rule::kPathNotAllowed});
  }
  // rocmtune's own drop-in keeps its grammar: not an admin file.
  tree_.Write("root/etc/modprobe.d/rocmtune.conf", modprobe);
  EXPECT_FALSE(Check(File("etc/modprobe.d/rocmtune.conf", "modprobe", commented, modprobe)));
}

TEST_F(AdminModprobeLineTest, ALineReachingIntoOthersIsRefused) {
  // libkmod joins "\\\n" with the next line and a quote runs on into the module's next options.
  const std::string joined =
      "options amdgpu \\\nmtype_local=1\noptions amdgpu gpu_recovery=\"1\noptions amdgpu x=1\"\n";
  tree_.Write("root/etc/modprobe.d/joined.conf", joined);
  auto edit = [&](std::string_view from, std::string_view to) {
    return File("etc/modprobe.d/joined.conf", "modprobe", testing::Edited(joined, from, to),
                Disk("etc/modprobe.d/joined.conf"));
  };
  ExpectRefused(Check(edit("mtype_local=1", "# rocmtune unset: mtype_local=1")),
                {"continued line", {}, rule::kAdminLine});
  ExpectRefused(Check(edit("options amdgpu \\", "# rocmtune unset: options amdgpu \\")),
                {"continuing line", {}, rule::kAdminLine});
  ExpectRefused(Check(edit("options amdgpu gpu_recovery", "# rocmtune unset: options amdgpu gpu_recovery")),
                {"unclosed quote", {}, rule::kAdminLine});
}

TEST(AdminLineShape, CommentedFormRoundTrips) {
  EXPECT_EQ(plan::CommentOut(plan::AdminLineFile::kEnvShell, "export X=1\r"), ": # rocmtune unset: export X=1\r");
  EXPECT_EQ(plan::CommentedOriginal(plan::AdminLineFile::kEnvList, "# rocmtune unset: X=1"), "X=1");
  EXPECT_FALSE(plan::CommentedOriginal(plan::AdminLineFile::kEnvList, "# X=1"));
  EXPECT_FALSE(plan::ChangedLines("a\nb", "a\nb\n"));
  EXPECT_EQ(plan::ChangedLines("a\nb\nc", "a\nB\nc")->size(), 1u);
}

}  // namespace
}  // namespace rocmtune::helper
