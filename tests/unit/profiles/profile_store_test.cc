// ProfileStore: built-ins, admin files under a temporary root, include resolution.
#include "profiles/profile_store.h"

#include <unistd.h>

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::profiles {
namespace {

using ::testing::HasSubstr;
using testing::TestTree;

std::string ProfileText(std::string_view description, std::string_view extra = "") {
  return fmt::format("schema_version = 1\ndescription = \"{}\"\n{}", description, extra);
}

std::string ItemText(std::string_view id, std::string_view action, std::string_view key = "",
                     std::string_view value = "") {
  std::string out = fmt::format("[[items]]\nid = \"{}\"\naction = \"{}\"\n", id, action);
  if (!key.empty()) out += fmt::format("key = \"{}\"\n", key);
  if (!value.empty()) out += fmt::format("value = \"{}\"\n", value);
  return out + fmt::format("why = \"why {}\"\nsource = \"src\"\n", id);
}

std::vector<std::string> Ids(const Profile& p) {
  std::vector<std::string> out;
  for (const auto& i : p.items) out.push_back(i.id + "@" + i.from);
  return out;
}

struct Fixture {
  TestTree tree;
  sys::Root Root() const { return *sys::Root::Open(tree.path()); }
  void Admin(std::string_view name, std::string_view text) const {
    tree.Write(fmt::format("etc/rocmtune/profiles/{}", name), text);
  }
};

TEST(ProfileStoreTest, BuiltinsAloneParseAndAreSorted) {
  Fixture f;
  ProfileStore store = ProfileStore::Load(f.Root());
  std::vector<std::string> names;
  for (const StoreEntry& e : store.entries()) {
    names.push_back(e.name);
    EXPECT_EQ(e.origin, "builtin") << e.name;
    EXPECT_FALSE(e.overrides_builtin) << e.name;
    EXPECT_TRUE(e.profile) << e.profile.error().message;
  }
  std::vector<std::string> builtins;
  for (const BuiltinProfile& b : BuiltinProfiles()) builtins.emplace_back(b.name);
  std::sort(builtins.begin(), builtins.end());
  EXPECT_EQ(names, builtins);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_TRUE(store.errors().empty());
}

TEST(ProfileStoreTest, AdminFileReplacesBuiltinOfTheSameName) {
  Fixture f;
  f.Admin("rdna1-safe.toml", ProfileText("site rules", ItemText("site-note", "note")));
  f.Admin("extra.toml", ProfileText("an extra one"));
  ProfileStore store = ProfileStore::Load(f.Root());
  const StoreEntry* e = store.Find("rdna1-safe");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->overrides_builtin);
  EXPECT_THAT(e->origin, HasSubstr("etc/rocmtune/profiles/rdna1-safe.toml"));
  auto resolved = store.Resolve("rdna1-safe");
  ASSERT_TRUE(resolved) << resolved.error().message;
  EXPECT_EQ(resolved->description, "site rules");
  EXPECT_EQ(Ids(*resolved), (std::vector<std::string>{"site-note@rdna1-safe"}));
  ASSERT_NE(store.Find("extra"), nullptr);
  EXPECT_FALSE(store.Find("extra")->overrides_builtin);
  EXPECT_EQ(store.entries().size(), BuiltinProfiles().size() + 1);
}

TEST(ProfileStoreTest, StockStaysAReset) {
  Fixture f;
  f.Admin("stock.toml", ProfileText("not stock at all", ItemText("x", "set", "amdgpu.noretry", "0")));
  auto bad = ProfileStore::Load(f.Root()).Resolve("stock");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("the stock profile must keep reset = true"));
  f.Admin("stock.toml", ProfileText("site stock", "reset = true\n" + ItemText("site-note", "note")));
  auto ok = ProfileStore::Load(f.Root()).Resolve("stock");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(ok->reset);
  EXPECT_EQ(ok->items.size(), 1u);
}

TEST(ProfileStoreTest, OnlyTomlFilesAreProfiles) {
  Fixture f;
  f.Admin("README", "not a profile");
  f.Admin(".hidden.toml", "garbage");
  f.Admin("x.toml~", "garbage");
  ProfileStore store = ProfileStore::Load(f.Root());
  EXPECT_EQ(store.entries().size(), BuiltinProfiles().size());
}

TEST(ProfileStoreTest, BadAdminFileIsReportedAndHidesNothing) {
  Fixture f;
  f.Admin("broken.toml", "schema_version = 1\n[[items\n");
  f.Admin("good.toml", ProfileText("fine"));
  f.Admin("uses-broken.toml", ProfileText("includes a bad one", "include = [\"broken\"]\n"));
  f.Admin("instinct.toml", "schema_version = 7\ndescription = \"x\"\n");
  f.Admin("big.toml", std::string(kMaxProfileBytes + 1, '#'));
  ProfileStore store = ProfileStore::Load(f.Root());
  // The built-ins (instinct replaced) + broken, good, uses-broken, big.
  EXPECT_EQ(store.entries().size(), BuiltinProfiles().size() + 4);

  const StoreEntry* broken = store.Find("broken");
  ASSERT_NE(broken, nullptr);
  ASSERT_FALSE(broken->profile);
  EXPECT_THAT(broken->profile.error().message, HasSubstr("broken.toml"));
  auto r = store.Resolve("broken");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("broken.toml"));

  auto uses = store.Resolve("uses-broken");
  ASSERT_FALSE(uses);
  EXPECT_THAT(uses.error().message, HasSubstr("profile 'uses-broken' includes 'broken'"));

  auto instinct = store.Resolve("instinct");
  ASSERT_FALSE(instinct) << "a bad admin override must not fall back to the built-in";
  EXPECT_THAT(instinct.error().message, HasSubstr("replaces the built-in profile instinct"));

  ASSERT_FALSE(store.Find("big")->profile);
  EXPECT_THAT(store.Find("big")->profile.error().message, HasSubstr("larger than"));

  EXPECT_TRUE(store.Resolve("good"));
  EXPECT_TRUE(store.Resolve("rdna1-safe"));
}

// An admin profile others may write, or one owned by another user, is not used (and does not
// fall back to the built-in of the same name).
TEST(ProfileStoreTest, UntrustedAdminFilesAreNotUsed) {
  Fixture f;
  f.Admin("good.toml", ProfileText("fine"));
  f.Admin("open.toml", ProfileText("anyone may edit this"));
  f.Admin("instinct.toml", ProfileText("someone else's"));
  f.tree.Chmod("etc/rocmtune/profiles/open.toml", 0666);
  const std::string theirs = f.tree.Path("etc/rocmtune/profiles/instinct.toml");
  bool chowned = ::chown(theirs.c_str(), 1000, 1000) == 0;
  ProfileStore store = ProfileStore::Load(f.Root());
  EXPECT_TRUE(store.Resolve("good"));
  auto open = store.Resolve("open");
  ASSERT_FALSE(open);
  EXPECT_THAT(open.error().message, HasSubstr("group or others may write it (mode 0666)"));
  if (!chowned) GTEST_SKIP() << "cannot chown to uid 1000 here (not root): the owner rule is untested";
  auto instinct = store.Resolve("instinct");
  ASSERT_FALSE(instinct) << "an untrusted override hides the built-in rather than silently using either";
  EXPECT_THAT(instinct.error().message, HasSubstr("owned by uid 1000"));
}

TEST(ProfileStoreTest, AGroupWritableProfileDirectoryDisablesEveryAdminFile) {
  Fixture f;
  f.Admin("good.toml", ProfileText("fine"));
  f.tree.Chmod("etc/rocmtune/profiles", 0775);
  ProfileStore store = ProfileStore::Load(f.Root());
  auto good = store.Resolve("good");
  ASSERT_FALSE(good);
  EXPECT_THAT(good.error().message, HasSubstr("etc/rocmtune/profiles: not used: group or others may write it"));
  EXPECT_TRUE(store.Resolve("rdna1-safe")) << "the built-ins stay";
}

// 0: as expected; 11: the unreadable directory was not reported; 12: it hid the built-ins.
int CheckUnlistable(const void* r) {
  ProfileStore store = ProfileStore::Load(*static_cast<const sys::Root*>(r));
  if (store.errors().size() != 1 || store.errors()[0].find("etc/rocmtune/profiles") == std::string::npos) return 11;
  return store.entries().size() == BuiltinProfiles().size() ? 0 : 12;
}

TEST(ProfileStoreTest, UnlistableAdminDirIsAnError) {
  Fixture f;
  f.Admin("good.toml", ProfileText("fine"));
  f.tree.Chmod("etc/rocmtune/profiles", 0);
  sys::Root root = f.Root();
  // Root ignores permission bits as root: check as "nobody" in a child.
  int result = testing::RunAsNobody(CheckUnlistable, &root);
  if (result == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(result, 0) << "11: directory error not reported, 12: built-ins hidden";
}

TEST(ProfileStoreTest, UnknownNameListsTheKnownOnes) {
  Fixture f;
  auto r = ProfileStore::Load(f.Root()).Resolve("rdna3-fast");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(r.error().message, HasSubstr("no profile named 'rdna3-fast'"));
  EXPECT_THAT(r.error().message, HasSubstr("rdna1-safe"));
}

// base: noretry=1 (a), note b. mid includes base: b again (replaced by id), noretry=0 on a new
// id (replaces a by key). top includes mid and side: its own item last.
std::array<BuiltinProfile, 4> IncludeTexts(std::vector<std::string>& keep) {
  keep = {
      ProfileText("base", ItemText("a", "set", "amdgpu.noretry", "1") + ItemText("b", "note") +
                              ItemText("c", "unset", "env.HIP_VISIBLE_DEVICES")),
      ProfileText("mid",
                  "include = [\"base\"]\n" + ItemText("b", "note") + ItemText("a2", "set", "amdgpu.noretry", "0")),
      ProfileText("side", ItemText("s", "set", "cmdline.iommu", "pt")),
      ProfileText("top", "include = [\"mid\", \"side\"]\n" + ItemText("t", "note")),
  };
  return {{{"base", keep[0]}, {"mid", keep[1]}, {"side", keep[2]}, {"top", keep[3]}}};
}

TEST(ProfileStoreTest, IncludesResolveDepthFirstWithOverrides) {
  Fixture f;
  std::vector<std::string> keep;
  auto builtins = IncludeTexts(keep);
  ProfileStore store = ProfileStore::Load(f.Root(), builtins);
  auto top = store.Resolve("top");
  ASSERT_TRUE(top) << top.error().message;
  EXPECT_EQ(Ids(*top), (std::vector<std::string>{"c@base", "b@mid", "a2@mid", "s@side", "t@top"}));
  EXPECT_EQ(top->description, "top");
  EXPECT_EQ(top->items[2].value, "0");
  // Resolving does not change the included profile itself.
  auto base = store.Resolve("base");
  ASSERT_TRUE(base);
  EXPECT_EQ(Ids(*base), (std::vector<std::string>{"a@base", "b@base", "c@base"}));
}

TEST(ProfileStoreTest, AdminFileCanIncludeABuiltin) {
  Fixture f;
  f.Admin("mine.toml", ProfileText("mine", "include = [\"rdna1-safe\"]\n" + ItemText("rdna1-groups", "note")));
  auto mine = ProfileStore::Load(f.Root()).Resolve("mine");
  ASSERT_TRUE(mine) << mine.error().message;
  ASSERT_FALSE(mine->items.empty());
  EXPECT_EQ(mine->items.front().id, "rdna1-unset-override");
  EXPECT_EQ(mine->items.front().from, "rdna1-safe");
  EXPECT_EQ(mine->items.back().id, "rdna1-groups");
  EXPECT_EQ(mine->items.back().from, "mine");
  EXPECT_EQ(mine->items.back().why, "why rdna1-groups");
}

TEST(ProfileStoreTest, IncludeErrors) {
  Fixture f;
  f.Admin("a.toml", ProfileText("a", "include = [\"b\"]\n"));
  f.Admin("b.toml", ProfileText("b", "include = [\"c\"]\n"));
  f.Admin("c.toml", ProfileText("c", "include = [\"a\"]\n"));
  f.Admin("lonely.toml", ProfileText("x", "include = [\"nowhere\"]\n"));
  f.Admin("wants-reset.toml", ProfileText("x", "include = [\"stock\"]\n"));
  ProfileStore store = ProfileStore::Load(f.Root());

  auto cycle = store.Resolve("a");
  ASSERT_FALSE(cycle);
  EXPECT_THAT(cycle.error().message, HasSubstr("include cycle: a -> b -> c -> a"));
  auto missing = store.Resolve("lonely");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("profile 'lonely' includes 'nowhere', which does not exist"));
  auto reset = store.Resolve("wants-reset");
  ASSERT_FALSE(reset);
  EXPECT_THAT(reset.error().message, HasSubstr("'stock', a reset profile"));
}

TEST(ProfileStoreTest, DeepIncludeChainIsBounded) {
  Fixture f;
  for (int i = 0; i < 20; ++i)
    f.Admin(fmt::format("p{}.toml", i), ProfileText("x", fmt::format("include = [\"p{}\"]\n", i + 1)));
  f.Admin("p20.toml", ProfileText("end"));
  auto r = ProfileStore::Load(f.Root()).Resolve("p0");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("nest deeper than 16"));
  EXPECT_TRUE(ProfileStore::Load(f.Root()).Resolve("p10"));  // 10 levels are fine
}

// Includes that share profiles are resolved once per profile. Without that, 16 files each
// including the next 8 times cost 8^15 visits: `profiles` and `show` never returned. The alarm
// turns such a hang into a failure (SIGALRM ends the test binary) instead of a stuck run.
class IncludeFanOutTest : public ::testing::Test {
 protected:
  void SetUp() override { alarm(60); }
  void TearDown() override { alarm(0); }
  // Profile p<i> with one note item i<i>, including `includes` (a TOML list's inside).
  void WriteProfile(int i, const std::string& includes) const {
    std::string text = includes.empty() ? "" : fmt::format("include = [{}]\n", includes);
    f.Admin(fmt::format("p{}.toml", i),
            ProfileText(fmt::format("p{}", i), text + ItemText(fmt::format("i{}", i), "note")));
  }
  Fixture f;
};

TEST_F(IncludeFanOutTest, EachFileIncludingTheNextEightTimesResolvesOnce) {
  for (int i = 0; i < 16; ++i) {
    std::string includes;
    for (int k = 0; i < 15 && k < 8; ++k) includes += fmt::format("{}\"p{}\"", k ? ", " : "", i + 1);
    WriteProfile(i, includes);
  }
  ProfileStore store = ProfileStore::Load(f.Root());
  auto top = store.Resolve("p0");
  ASSERT_TRUE(top) << top.error().message;
  std::vector<std::string> expected;
  for (int i = 15; i >= 0; --i) expected.push_back(fmt::format("i{}@p{}", i, i));
  EXPECT_EQ(Ids(*top), expected);
  for (const StoreEntry& e : store.entries()) EXPECT_TRUE(store.Resolve(e.name)) << e.name;  // as `profiles` does
}

TEST_F(IncludeFanOutTest, ADiamondOfDistinctIncludesKeepsEachItemOnce) {
  for (int i = 0; i < 16; ++i) {
    std::string includes;
    for (int k = i + 1; k < 16 && k <= i + 8; ++k) includes += fmt::format("{}\"p{}\"", k > i + 1 ? ", " : "", k);
    WriteProfile(i, includes);
  }
  auto top = ProfileStore::Load(f.Root()).Resolve("p0");
  ASSERT_TRUE(top) << top.error().message;
  std::vector<std::string> ids = Ids(*top);
  EXPECT_EQ(ids.size(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(std::count(ids.begin(), ids.end(), fmt::format("i{}@p{}", i, i)), 1) << i;
  EXPECT_EQ(ids.back(), "i0@p0");  // a profile's own items come after everything it includes
}

TEST_F(IncludeFanOutTest, AReusedProfileStillCountsTowardTheDepthBound) {
  // "top" reaches "d0" at depth 1 first (fits), then at depth 6 through b -> c1 .. c4, where
  // d0's own 10 levels reach the bound of 16: the reuse must not hide that.
  for (int i = 0; i < 10; ++i)
    f.Admin(fmt::format("d{}.toml", i), ProfileText("d", fmt::format("include = [\"d{}\"]\n", i + 1)));
  f.Admin("d10.toml", ProfileText("end"));
  for (int i = 1; i < 4; ++i)
    f.Admin(fmt::format("c{}.toml", i), ProfileText("c", fmt::format("include = [\"c{}\"]\n", i + 1)));
  f.Admin("c4.toml", ProfileText("c", "include = [\"d0\"]\n"));
  f.Admin("b.toml", ProfileText("b", "include = [\"c1\"]\n"));
  f.Admin("top.toml", ProfileText("top", "include = [\"d0\", \"b\"]\n"));
  ProfileStore store = ProfileStore::Load(f.Root());
  auto b = store.Resolve("b");  // d10 at depth 15: within the bound
  ASSERT_TRUE(b) << b.error().message;
  auto r = store.Resolve("top");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("nest deeper than 16"));
}

}  // namespace
}  // namespace rocmtune::profiles
