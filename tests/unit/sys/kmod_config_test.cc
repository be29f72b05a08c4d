#include "sys/kmod_config.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libkmod.h>

#include "sys/unique_fd.h"
#include "test_tree.h"
#include "util/handle.h"

namespace rocmtune::sys {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::TestTree;
using namespace std::string_literals;

constexpr std::string_view kAmd[] = {"amdgpu", "ttm", "amdttm"};

// Reads the world, failing the test on error. Nothing may be printed: every complaint belongs
// in `errors`.
ModprobeConfig Read(const TestTree& t, std::span<const std::string_view> modules = kAmd) {
  auto root = Root::Open(t.path());
  if (!root) throw std::runtime_error(root.error().message);
  ::testing::internal::CaptureStderr();
  auto config = ReadModprobeConfig(*root, modules);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "") << "the reader wrote to stderr";
  if (!config) throw std::runtime_error(config.error().message);
  return *config;
}

// "module name=value@file:line" per option, in load order.
std::vector<std::string> Describe(const ModprobeConfig& c) {
  std::vector<std::string> out;
  for (const ModuleOption& o : c.options)
    out.push_back(o.module + " " + o.name + (o.bare ? "" : "=" + o.value) + "@" + o.file + ":" +
                  std::to_string(o.line));
  return out;
}

TEST(KmodConfigTest, AdminFileHidesVendorFileOfTheSameName) {
  TestTree t;
  t.Write("etc/modprobe.d/amdgpu.conf", "options amdgpu noretry=0\n");
  t.Write("usr/lib/modprobe.d/amdgpu.conf", "options amdgpu noretry=1 gpu_recovery=1\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(c.files, ElementsAre("etc/modprobe.d/amdgpu.conf"));
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu noretry=0@etc/modprobe.d/amdgpu.conf:1"));
  EXPECT_FALSE(Winning(c, "amdgpu", "gpu_recovery"));
  EXPECT_THAT(c.errors, IsEmpty());
}

TEST(KmodConfigTest, FilesFromAllDirectoriesAreReadInBasenameOrderAndTheLastValueWins) {
  TestTree t;
  t.Write("usr/lib/modprobe.d/10-vendor.conf", "options amdgpu noretry=1\n");
  t.Write("etc/modprobe.d/50-admin.conf", "# ours\noptions amdgpu noretry=0\n");
  t.Write("run/modprobe.d/60-run.conf", "options amdgpu noretry=1 runpm=0\n");
  t.Write("usr/local/lib/modprobe.d/99-local.conf", "\n\noptions amdgpu noretry=0\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(c.files, ElementsAre("usr/lib/modprobe.d/10-vendor.conf", "etc/modprobe.d/50-admin.conf",
                                   "run/modprobe.d/60-run.conf", "usr/local/lib/modprobe.d/99-local.conf"));
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu noretry=1@usr/lib/modprobe.d/10-vendor.conf:1",
                                       "amdgpu noretry=0@etc/modprobe.d/50-admin.conf:2",
                                       "amdgpu noretry=1@run/modprobe.d/60-run.conf:1",
                                       "amdgpu runpm=0@run/modprobe.d/60-run.conf:1",
                                       "amdgpu noretry=0@usr/local/lib/modprobe.d/99-local.conf:3"));
  for (size_t i = 0; i < c.options.size(); ++i) EXPECT_EQ(c.options[i].order, static_cast<int>(i));
  auto win = Winning(c, "amdgpu", "noretry");
  ASSERT_TRUE(win);
  EXPECT_EQ(win->value, "0");
  EXPECT_EQ(win->file, "usr/local/lib/modprobe.d/99-local.conf");
}

TEST(KmodConfigTest, TrailingHashIsNotAComment) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf", "options amdgpu noretry=0 # comment\n# a real comment\n");
  ModprobeConfig c = Read(t);
  // The kernel ignores '#' as an unknown parameter and still gets "comment".
  EXPECT_THAT(Describe(c),
              ElementsAre("amdgpu noretry=0@etc/modprobe.d/a.conf:1", "amdgpu comment@etc/modprobe.d/a.conf:1"));
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_THAT(c.errors[0], HasSubstr("etc/modprobe.d/a.conf line 1: amdgpu: '#' is not a comment"));
  EXPECT_EQ(Winning(c, "amdgpu", "noretry")->value, "0");
}

TEST(KmodConfigTest, DashedModuleNameIsNormalisedToAnotherModule) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf", "options amd-gpu x=1\noptions amdgpu y=2\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu y=2@etc/modprobe.d/a.conf:2"));
  constexpr std::string_view kDashed[] = {"amd-gpu"};
  ModprobeConfig d = Read(t, kDashed);
  EXPECT_THAT(Describe(d), ElementsAre("amd_gpu x=1@etc/modprobe.d/a.conf:1"));
  auto winning = Winning(d, "amd-gpu", "x");
  ASSERT_TRUE(winning) << "the dashed name finds the normalised module";
  EXPECT_EQ(winning->value, "1");
}

TEST(KmodConfigTest, QuotedValuesBareNamesTabsAndCrlf) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf",
          "options amdgpu lockup_timeout=\"1000,2000\" \"name=a b\" flag\n"
          "options\tamdgpu\tppfeaturemask=0xfff7bfff\tno-retry=1\r\n"
          "options amdgpu empty= quoted=\"\"\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(
      Describe(c),
      ElementsAre("amdgpu lockup_timeout=1000,2000@etc/modprobe.d/a.conf:1", "amdgpu name=a b@etc/modprobe.d/a.conf:1",
                  "amdgpu flag@etc/modprobe.d/a.conf:1", "amdgpu ppfeaturemask=0xfff7bfff@etc/modprobe.d/a.conf:2",
                  "amdgpu no_retry=1@etc/modprobe.d/a.conf:2",  // \r is kernel whitespace
                  "amdgpu empty=@etc/modprobe.d/a.conf:3", "amdgpu quoted=@etc/modprobe.d/a.conf:3"));
  EXPECT_TRUE(c.options[2].bare);
  EXPECT_FALSE(c.options[5].bare);
  EXPECT_EQ(Winning(c, "amdgpu", "no_retry")->value, "1");
  EXPECT_EQ(Winning(c, "amdgpu", "no-retry")->value, "1");
}

TEST(KmodConfigTest, BadLinesAreReportedInLibkmodsWordsAndStderrStaysQuiet) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf",
          "option amdgpu noretry=1\n"  // typo: not a command
          "options amdgpu\n"           // no options
          "options amdgpu\t\n"         // libkmod: still no options
          "options a]b x=1\n"          // bad module name
          "  # indented comment\n"     // only column 0 starts a comment
          "include /etc/foo.conf\n"
          "blacklist radeon\n"
          "options amdgpu noretry=0\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu noretry=0@etc/modprobe.d/a.conf:8"));
  EXPECT_THAT(c.errors, ElementsAre("etc/modprobe.d/a.conf line 1: ignoring bad line starting with 'option'",
                                    "etc/modprobe.d/a.conf line 2: ignoring bad line starting with 'options'",
                                    "etc/modprobe.d/a.conf line 3: ignoring bad line starting with 'options'",
                                    "etc/modprobe.d/a.conf line 4: ignoring bad line starting with 'options'",
                                    "etc/modprobe.d/a.conf line 5: ignoring bad line starting with '#'",
                                    "etc/modprobe.d/a.conf: command include is deprecated and not parsed anymore"));
}

TEST(KmodConfigTest, ContinuationLinesKeepTheirStartingLineNumber) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf", "\noptions amdgpu a=1 \\\n  b=2\noptions amdgpu c=3\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu a=1@etc/modprobe.d/a.conf:2", "amdgpu b=2@etc/modprobe.d/a.conf:2",
                                       "amdgpu c=3@etc/modprobe.d/a.conf:4"));
}

TEST(KmodConfigTest, TtmAndAmdttmOptions) {
  TestTree t;
  t.Write("etc/modprobe.d/ttm.conf", "options ttm pages_limit=4194304 page_pool_size=4194304\n");
  t.Write("etc/modprobe.d/amdttm.conf", "options amdttm pages_limit=1\noptions i915 enable_guc=3\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdttm pages_limit=1@etc/modprobe.d/amdttm.conf:1",
                                       "ttm pages_limit=4194304@etc/modprobe.d/ttm.conf:1",
                                       "ttm page_pool_size=4194304@etc/modprobe.d/ttm.conf:1"));
  EXPECT_EQ(Winning(c, "ttm", "pages_limit")->value, "4194304");
  EXPECT_FALSE(Winning(c, "i915", "enable_guc"));  // not requested
}

TEST(KmodConfigTest, RootCommandLineComesLastAndWins) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf", "options amdgpu noretry=0\n");
  t.Write("usr/lib/modprobe.d/zz.conf", "options amdgpu noretry=0\n");
  t.Write("proc/cmdline",
          "BOOT_IMAGE=/vmlinuz-6.1.0 root=/dev/sda1 ro amdgpu.noretry=1 amdgpu.lockup_timeout=\"1000,2000\" "
          "\"amdgpu.sched_policy=a b\" amd-gpu.x=1 ttm.pages_limit=5 modprobe.blacklist=radeon quiet\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c),
              ElementsAre("amdgpu noretry=0@etc/modprobe.d/a.conf:1", "amdgpu noretry=0@usr/lib/modprobe.d/zz.conf:1",
                          "amdgpu noretry=1@proc/cmdline:0", "amdgpu lockup_timeout=1000,2000@proc/cmdline:0",
                          "amdgpu sched_policy=a b@proc/cmdline:0", "ttm pages_limit=5@proc/cmdline:0"));
  auto win = Winning(c, "amdgpu", "noretry");
  ASSERT_TRUE(win);
  EXPECT_EQ(win->value, "1");
  EXPECT_EQ(win->file, "proc/cmdline");
}

TEST(KmodConfigTest, TheHostCommandLineNeverAppears) {
  TestTree t;  // no proc/cmdline: whatever the host's has must not show up
  t.Write("etc/modprobe.d/a.conf", "options amdgpu noretry=0\n");
  ModprobeConfig c = Read(t, {});
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu noretry=0@etc/modprobe.d/a.conf:1"));
}

// ---- libkmod, the oracle ---------------------------------------------------------------------

using KmodCtx = Handle<kmod_ctx*, kmod_unref>;
using KmodConfigIter = Handle<kmod_config_iter*, kmod_config_iter_free_iter>;
using OptionList = std::vector<std::pair<std::string, std::string>>;

// Every `options` entry of a libkmod context reading `paths`, in libkmod's order; kmod_new()
// appends the host's /proc/cmdline entries last.
OptionList LibkmodOptions(const std::string& dir, const std::vector<std::string>& paths) {
  std::vector<const char*> c_paths;
  for (const std::string& p : paths) c_paths.push_back(p.c_str());
  c_paths.push_back(nullptr);
  KmodCtx ctx(kmod_new(dir.c_str(), c_paths.data()));
  if (!ctx) throw std::runtime_error("kmod_new() failed");
  KmodConfigIter it(kmod_config_get_options(ctx.get()));
  OptionList out;
  while (it && kmod_config_iter_next(it.get())) {
    const char* key = kmod_config_iter_get_key(it.get());
    const char* value = kmod_config_iter_get_value(it.get());
    out.emplace_back(key ? key : "", value ? value : "");
  }
  return out;
}

// "name[=value]" per module, from (module, options) entries joined and split as the kernel does.
std::map<std::string, std::vector<std::string>> Params(const OptionList& entries) {
  std::map<std::string, std::string> joined;
  for (const auto& [module, options] : entries) joined[module] += (joined[module].empty() ? "" : " ") + options;
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [module, options] : joined)
    for (const ModuleArg& a : SplitModuleArgs(options))
      out[module].push_back(ParamName(a.name) + (a.value ? "=" + *a.value : ""));
  return out;
}

std::map<std::string, std::vector<std::string>> Params(const ModprobeConfig& c) {
  std::map<std::string, std::vector<std::string>> out;
  for (const ModuleOption& o : c.options)
    if (o.file != "proc/cmdline") out[o.module].push_back(o.name + (o.bare ? "" : "=" + o.value));
  return out;
}

TEST(KmodConfigTest, OptionsMatchLibkmod) {
  TestTree t;
  t.Write("usr/lib/modprobe.d/10-vendor.conf", "options amdgpu noretry=1 gpu_recovery=1\noptions ttm pages_limit=1\n");
  t.Write("etc/modprobe.d/10-vendor.conf", "options amdgpu noretry=0\n");  // hides the vendor file
  t.Write("etc/modprobe.d/20-site.conf",
          "# comment\n  options amdgpu ppfeaturemask=0xffffffff\r\n"
          "options\tamd-gpu\tdc=1  \"a b\"=\"c d\"\n"
          "options amdgpu runpm=0 \\\n  aspm=0\n"
          "options amdgpu\t\n"  // no options: a bad line
          "blacklist radeon\nfrobnicate amdgpu x=1\n"
          "options amdttm page_pool_size=4 dup=1 dup=2\n");
  t.Write("run/modprobe.d/30-run.conf", "options amdgpu mes=1\n");
  t.Write("lib/modprobe.d/40-lib.alias", "options ttm pool=2 bare\n");
  t.Write("lib/modprobe.d/50-nul.conf", "options amdgpu sg=1\0 hidden=1\noptions amdgpu after=1"s);
  ModprobeConfig ours = Read(t, {});

  std::vector<std::string> dirs;
  for (std::string_view d : kModprobeDirs) dirs.push_back(t.path() + "/" + std::string(d));
  ::testing::internal::CaptureStderr();  // libkmod logs the bad lines
  OptionList theirs = LibkmodOptions(t.path(), dirs);
  OptionList host = LibkmodOptions(t.path(), {});
  ::testing::internal::GetCapturedStderr();
  ASSERT_GE(theirs.size(), host.size());
  theirs.resize(theirs.size() - host.size());
  ASSERT_FALSE(theirs.empty());
  EXPECT_EQ(Params(ours), Params(theirs));
  EXPECT_THAT(ours.errors, Contains(HasSubstr("20-site.conf line 6: ignoring bad line starting with 'options'")));
  ASSERT_TRUE(Winning(ours, "amdgpu", "noretry"));
  EXPECT_EQ(Winning(ours, "amdgpu", "noretry")->value, "0");
}

TEST(KmodConfigTest, CommandLineMatchesLibkmodOnThisHost) {
  // libkmod reads only the host's /proc/cmdline; a world holding a copy of it must give what
  // libkmod gives (KernelCmdlineModuleOptions follows kmod 30).
  std::ifstream in("/proc/cmdline", std::ios::binary);
  std::string host((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (host.empty()) GTEST_SKIP() << "no /proc/cmdline";
  TestTree t;
  t.Write("proc/cmdline", host);
  ::testing::internal::CaptureStderr();
  OptionList theirs = LibkmodOptions(t.path(), {});
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(KernelCmdlineModuleOptions(host), theirs);
  std::vector<std::string> ours, expected;
  for (const ModuleOption& o : Read(t, {}).options)
    ours.push_back(o.module + " " + o.name + (o.bare ? "" : "=" + o.value));
  for (const auto& [module, params] : Params(theirs))
    for (const std::string& p : params) expected.push_back(module + " " + p);
  std::sort(ours.begin(), ours.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ours, expected);
}

TEST(KmodConfigTest, SymlinkOutOfTheRootIsNotReadButStillHidesItsName) {
  TestTree outside;
  outside.Write("evil.conf", "options amdgpu evil=1\n");
  TestTree t;
  t.Symlink("etc/modprobe.d/evil.conf", outside.Path("evil.conf"));  // absolute
  t.Symlink("etc/modprobe.d/evil2.conf", "../../../../../../../../../../" + outside.Path("evil.conf"));
  t.Write("usr/lib/modprobe.d/evil.conf", "options amdgpu vendor=1\n");
  t.Write("usr/share/rocm/inside.conf", "options amdgpu inside=1\n");
  t.Symlink("etc/modprobe.d/inside.conf", "../../usr/share/rocm/inside.conf");
  ModprobeConfig c = Read(t);
  // libkmod takes the first entry of a name even when it cannot be opened, so the vendor file stays hidden.
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu inside=1@etc/modprobe.d/inside.conf:1"));
  EXPECT_THAT(c.files, ElementsAre("etc/modprobe.d/inside.conf"));
  ASSERT_EQ(c.errors.size(), 2u);
  EXPECT_THAT(c.errors[0], HasSubstr("etc/modprobe.d/evil.conf is not read"));
  EXPECT_THAT(c.errors[0], HasSubstr("it still hides any evil.conf in later directories"));
  EXPECT_THAT(c.errors[1], HasSubstr("etc/modprobe.d/evil2.conf is not read"));
}

TEST(KmodConfigTest, EmptyAndMissingDirectories) {
  TestTree t;
  ModprobeConfig none = Read(t);
  EXPECT_THAT(none.files, IsEmpty());
  EXPECT_THAT(none.options, IsEmpty());
  EXPECT_THAT(none.errors, IsEmpty());
  t.Mkdir("etc/modprobe.d");
  t.Mkdir("usr/lib/modprobe.d");
  ModprobeConfig empty = Read(t);
  EXPECT_THAT(empty.files, IsEmpty());
  EXPECT_THAT(empty.options, IsEmpty());
  EXPECT_THAT(empty.errors, IsEmpty());
}

TEST(KmodConfigTest, LibSymlinkToUsrLibIsReadOnce) {
  TestTree t;
  t.Write("usr/lib/modprobe.d/amdgpu.conf", "options amdgpu noretry=1\n");
  t.Symlink("lib", "usr/lib");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(c.files, ElementsAre("usr/lib/modprobe.d/amdgpu.conf"));
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu noretry=1@usr/lib/modprobe.d/amdgpu.conf:1"));
}

TEST(KmodConfigTest, WhichNamesAreRead) {
  TestTree t;
  t.Write("etc/modprobe.d/a.alias", "options amdgpu alias_file=1\n");  // kmod 30 reads *.alias
  t.Write("etc/modprobe.d/.hidden.conf", "options amdgpu hidden=1\n");
  t.Write("etc/modprobe.d/b.conf.dpkg-old", "options amdgpu old=1\n");
  t.Write("etc/modprobe.d/README", "options amdgpu readme=1\n");
  t.Mkdir("etc/modprobe.d/dir.conf");
  t.Write("usr/lib/modprobe.d/dir.conf", "options amdgpu under_dir=1\n");  // a directory hides nothing
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu alias_file=1@etc/modprobe.d/a.alias:1",
                                       "amdgpu under_dir=1@usr/lib/modprobe.d/dir.conf:1"));
  EXPECT_THAT(c.errors, ElementsAre("Directories inside directories are not supported: etc/modprobe.d/dir.conf"));
}

TEST(KmodConfigTest, FileOverOneMebibyteIsRefused) {
  TestTree t;
  std::string big = "options amdgpu noretry=0\n";
  while (big.size() < (2u << 20)) big += "# padding padding padding padding padding padding padding\n";
  t.Write("etc/modprobe.d/big.conf", big);
  auto root = Root::Open(t.path());
  ASSERT_TRUE(root);
  auto c = ReadModprobeConfig(*root, kAmd);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::kTooLarge);
  EXPECT_THAT(c.error().message, HasSubstr("etc/modprobe.d/big.conf"));
}

TEST(KmodConfigTest, NulByteEndsTheLineForLibkmod) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf", "options amdgpu a=1\0b=2\noptions amdgpu c=3\n\0\0"s);
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu a=1@etc/modprobe.d/a.conf:1", "amdgpu c=3@etc/modprobe.d/a.conf:2"));
  EXPECT_THAT(c.errors, IsEmpty());
}

TEST(KmodConfigTest, DoubleDashEndsWhatTheKernelReads) {
  TestTree t;
  t.Write("etc/modprobe.d/a.conf", "options amdgpu a=1 -- b=2\n");
  t.Write("proc/cmdline", "amdgpu.c=3\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu a=1@etc/modprobe.d/a.conf:1"));
  EXPECT_FALSE(Winning(c, "amdgpu", "c"));
  EXPECT_THAT(c.errors, Contains(HasSubstr("the kernel ignores every amdgpu option after '--'")));
  EXPECT_THAT(c.errors, Contains(HasSubstr("proc/cmdline: amdgpu: 'c=3' is ignored")));
}

TEST(KmodConfigTest, QuoteRunsOnIntoTheNextOptionsLine) {
  // libkmod joins "a=\"x" and "y\"" with a space; the kernel reads one parameter.
  TestTree t;
  t.Write("etc/modprobe.d/a.conf", "options amdgpu a=\"x\noptions amdgpu y\" b=1\n");
  ModprobeConfig c = Read(t);
  EXPECT_THAT(Describe(c), ElementsAre("amdgpu a=x y@etc/modprobe.d/a.conf:1", "amdgpu b=1@etc/modprobe.d/a.conf:2"));
}

TEST(SplitModuleArgsTest, FollowsTheKernelsNextArg) {
  auto args = SplitModuleArgs("  a=1\tb \"c=d e\" f=\"g h\" i=\"\" j=k\"l m\"n =x \"o\" p=\"");
  std::vector<std::string> got;
  for (const ModuleArg& a : args) got.push_back(a.name + (a.value ? "=[" + *a.value + "]" : ""));
  EXPECT_THAT(got, ElementsAre("a=[1]", "b", "c=[d e]", "f=[g h]", "i=[]", "j=[k\"l m\"n]", "=x", "o", "p=[]"));
  EXPECT_EQ(args[0].offset, 2u);
  EXPECT_EQ(args[2].offset, 8u);
}

TEST(KernelCmdlineTest, MatchesKmod30) {
  // Expected output taken from `modprobe -c` (kmod 30) with this line bound over /proc/cmdline.
  std::vector<std::string> errors;
  auto got = KernelCmdlineModuleOptions(
      "amdgpu.noretry=1 amd-gpu.x=2 amdgpu.lockup_timeout=\"1000,2000\" \"amdgpu.a=b c\" amdgpu.s=\"x y\" "
      "foo.bar.baz=1 amdgpu.flag amdgpu.e= modprobe.blacklist=radeon ttm.pages_limit=5 a]b.x=1 amdgpu.\"s=5\" "
      "am\"dgpu.t=6\" console=ttyS0 -- amdgpu.after=1 amdgpu.u=7\"\n",
      &errors);
  std::vector<std::string> flat;
  for (const auto& [m, o] : got) flat.push_back(m + " " + o);
  EXPECT_THAT(flat,
              ElementsAre("amdgpu noretry=1", "amd_gpu x=2", "amdgpu lockup_timeout=\"1000,2000\"", "amdgpu a=\"b c\"",
                          "amdgpu s=\"x y\"", "amdgpu flag", "amdgpu e=", "ttm pages_limit=5", "amdgpu after=1"));
  EXPECT_THAT(errors, ElementsAre(HasSubstr("while parsing module name: 'a]b'")));
}

}  // namespace
}  // namespace rocmtune::sys
