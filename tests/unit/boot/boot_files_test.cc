// The boot loader's files on a root-only ESP (knobs/boot_files.h): what the helper reads, the
// JSON it sends the daemon and everything that JSON may not carry, the Root that answers from
// it (sys::RootSupplement), and the check that decides the daemon needs it, as "nobody" on an
// ESP mounted the way Debian mounts it (umask=0077: a 0700 directory).
#include "boot/boot_files.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_tree.h"
#include "util/json_text.h"

namespace rocmtune::boot {
namespace {

using testing::TestTree;

constexpr std::string_view kEntry = "boot/efi/loader/entries/abc-6.1.0-28-amd64.conf";
constexpr std::string_view kEntryText = "title Debian\nlinux /abc/6.1.0-28-amd64/linux\noptions root=UUID=1 ro quiet\n";

void DebianEsp(const TestTree& t) {
  t.Write("boot/efi/loader/loader.conf", "timeout 3\ndefault abc-*\n");
  t.Write(kEntry, kEntryText);
  t.Write("boot/efi/loader/random-seed", std::string("\0\x01\x02", 3));
  t.Write("boot/efi/loader/entries/binary.conf", std::string("title x\0y\n", 10));
  t.Write("boot/efi/loader/entries/huge.conf", std::string(kMaxBootFileBytes + 1, 'x'));
  t.Write("boot/efi/loader/entries/notes.txt", "not an entry\n");
  t.Write("boot/efi/EFI/debian/grubx64.efi", "MZ");
  t.Write("etc/shadow", "root:secret\n");
}

sys::Root Open(const TestTree& t) { return *sys::Root::Open(t.path()); }

TEST(BootFilesTest, TheHelperReadsTheLoaderFilesAndNothingElse) {
  TestTree t;
  DebianEsp(t);
  sys::RootSupplement files = CollectBootFiles(Open(t));
  EXPECT_EQ(files.dirs.size(), 2u);
  EXPECT_EQ(files.dirs.at("boot/efi/loader"), (std::vector<std::string>{"entries", "loader.conf", "random-seed"}));
  EXPECT_EQ(files.dirs.at("boot/efi/loader/entries"),
            (std::vector<std::string>{"abc-6.1.0-28-amd64.conf", "binary.conf", "huge.conf", "notes.txt"}));
  // Text .conf files under the bound only: not the random seed, a NUL, 64 KiB + 1, a .txt.
  ASSERT_EQ(files.files.size(), 2u);
  EXPECT_EQ(files.files.at("boot/efi/loader/loader.conf"), "timeout 3\ndefault abc-*\n");
  EXPECT_EQ(files.files.at(std::string(kEntry)), kEntryText);
}

TEST(BootFilesTest, TheJsonRoundTrips) {
  TestTree t;
  DebianEsp(t);
  sys::RootSupplement files = CollectBootFiles(Open(t));
  auto back = BootFilesFromJson(JsonText(BootFilesJson(files), -1));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->files, files.files);
  EXPECT_EQ(back->dirs, files.dirs);
  auto empty = BootFilesFromJson(JsonText(BootFilesJson({}), -1));
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty->files.empty() && empty->dirs.empty());
}

TEST(BootFilesTest, TheDaemonRefusesWhatTheHelperWouldNeverSend) {
  const std::string dirs = R"("dirs":{"efi/loader":["loader.conf"]})";
  struct Case {
    std::string json, error;
  };
  for (const Case& c : std::vector<Case>{
           {"", "JSON"},
           {"[]", "not an object"},
           {R"({"dirs":{}})", "not an object"},
           {R"({"dirs":{},"files":{},"more":1})", "not an object"},
           {R"({"dirs":{"etc":["shadow"]},"files":{}})", "'etc' is not a loader directory"},
           {R"({"dirs":{"efi/loader":"loader.conf"},"files":{}})", "no list of names"},
           {R"({"dirs":{"efi/loader":["../x"]},"files":{}})", "lists the name '../x'"},
           {R"({"dirs":{"efi/loader":["a/b"]},"files":{}})", "lists the name 'a/b'"},
           {R"({"dirs":{"efi/loader":[1]},"files":{}})", "not a string"},
           {"{" + dirs + R"(,"files":{"etc/shadow":"x"}})", "'etc/shadow' is not a loader file"},
           {"{" + dirs + R"(,"files":{"efi/loader/entries/a.conf":"x"}})", "not in its directory's list"},
           {"{" + dirs + R"(,"files":{"efi/loader/loader.conf":7}})", "no text content"},
           {"{" + dirs + R"(,"files":{"efi/loader/loader.conf":")" + std::string(kMaxBootFileBytes + 1, 'x') + R"("}})",
            "no text content"},
           {R"({"dirs":{"efi/loader":[[[[["x"]]]]]},"files":{}})", "deeper"},
       }) {
    auto got = BootFilesFromJson(c.json);
    ASSERT_FALSE(got) << c.json.substr(0, 200);
    EXPECT_NE(got.error().message.find(c.error), std::string::npos)
        << c.json.substr(0, 200) << ": " << got.error().message;
  }
  auto ok = BootFilesFromJson("{" + dirs + R"(,"files":{"efi/loader/loader.conf":"default a\n"}})");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->files.at("efi/loader/loader.conf"), "default a\n");
}

// The Root answers from the supplement for its paths, as the live tree for the rest.
TEST(BootFilesTest, ARootWithASupplementAnswersFromIt) {
  TestTree t;
  t.Write("boot/efi/loader/loader.conf", "on the tree\n");
  t.Write("boot/efi/loader/entries/gone.conf", "only on the tree\n");
  t.Write("etc/kernel/cmdline", "root=UUID=1\n");
  sys::Root root = Open(t);
  sys::RootSupplement files;
  files.dirs["boot/efi/loader"] = {"entries", "loader.conf"};
  files.dirs["boot/efi/loader/entries"] = {"a.conf"};
  files.files["boot/efi/loader/loader.conf"] = "from the helper\n";
  files.files["boot/efi/loader/entries/a.conf"] = "title a\n";
  root.Supplement(std::make_shared<const sys::RootSupplement>(files));
  EXPECT_EQ(root.ReadFile("boot/efi/loader/loader.conf").value_or(""), "from the helper\n");
  EXPECT_EQ(root.ReadFile("/boot/efi/loader/entries/a.conf").value_or(""), "title a\n");
  auto gone = root.ReadFile("boot/efi/loader/entries/gone.conf");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(root.ReadFile("boot/efi/loader/loader.conf", 4).error().code, ErrorCode::kTooLarge);
  EXPECT_EQ(root.ReadFile("boot/efi/loader/entries").error().code, ErrorCode::kInvalidData);
  EXPECT_EQ(root.ListDir("boot/efi/loader/entries").value_or(std::vector<std::string>{}),
            (std::vector<std::string>{"a.conf"}));
  EXPECT_FALSE(root.ListDir("boot/efi/loader/loader.conf"));
  EXPECT_EQ(root.TypeOf("boot/efi/loader/entries"), sys::EntryType::kDirectory);
  EXPECT_EQ(root.ResolvedTypeOf("boot/efi/loader/entries/a.conf"), sys::EntryType::kFile);
  EXPECT_FALSE(root.Exists("boot/efi/loader/entries/gone.conf"));
  EXPECT_EQ(root.ReadFile("etc/kernel/cmdline").value_or(""), "root=UUID=1\n") << "the rest is the tree";
  auto dup = root.Duplicate();
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->ReadFile("boot/efi/loader/loader.conf").value_or(""), "from the helper\n");
}

// Debian's ESP: a vfat mount with umask=0077 is a 0700 directory of root's.
int CheckHidden(const void* arg) {
  const auto& t = *static_cast<const TestTree*>(arg);
  auto root = sys::Root::Open(t.path());
  if (!root) return 11;
  return BootFilesHidden(*root) ? 0 : 12;
}

TEST(BootFilesTest, ARootOnlyEspIsHiddenFromAUser) {
  TestTree t;
  t.Chmod(".", 0755);  // mkdtemp's 0700 would hide everything from "nobody"
  DebianEsp(t);
  EXPECT_FALSE(BootFilesHidden(Open(t))) << "root reads the ESP";
  int open = testing::RunAsNobody(CheckHidden, &t);
  if (open == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(open, 12) << "a readable ESP is not hidden";
  t.Chmod("boot/efi", 0700);
  EXPECT_EQ(testing::RunAsNobody(CheckHidden, &t), 0) << "11: root not opened, 12: the 0700 ESP was not hidden";
  t.Chmod("boot/efi", 0755);
  t.Chmod("boot/efi/loader", 0700);
  EXPECT_EQ(testing::RunAsNobody(CheckHidden, &t), 0) << "a 0700 loader/ directory hides it too";
}

}  // namespace
}  // namespace rocmtune::boot
