// systemd-boot's default entry as the boot loader picks it (knobs/loader_entries.h; systemd
// src/boot/boot.c config_entry_compare and config_default_entry_select): LoaderEntryDefault, then
// loader.conf's `default` glob, then the first entry in sort order, boot-counting suffixes and
// XBOOTLDR entries included; and the next boot's command line systemd-boot setups read from it.
#include "boot/loader_entries.h"

#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "boot/next_boot.h"
#include "detect/inventory.h"
#include "knobs/backend.h"
#include "knowledge/catalog.h"
#include "test_tree.h"

namespace rocmtune::boot {
namespace {

using testing::TestTree;

std::string Entry(std::string_view options, std::string_view more = "") {
  return fmt::format("title Linux\n{}linux /vmlinuz\noptions {}\n", more, options);
}

std::string Default(const TestTree& t) {
  auto root = sys::Root::Open(t.path());
  auto def = FindDefaultLoaderEntry(*root);
  return def ? def->path : "error: " + def.error().message;
}

TEST(LoaderEntriesTest, LoaderConfDefaultGlobPicksTheFirstMatchInOrder) {
  TestTree t;
  t.Write("efi/loader/loader.conf", "timeout 3\ndefault debian-*\n");
  t.Write("efi/loader/entries/debian-6.1.0-26-amd64.conf", Entry("root=UUID=1 ro quiet"));
  t.Write("efi/loader/entries/debian-6.1.0-28-amd64.conf", Entry("root=UUID=1 ro quiet iommu=pt"));
  t.Write("efi/loader/entries/arch.conf", Entry("root=UUID=2 rw"));
  // By id, newest version first (strverscmp): 6.1.0-28 before 6.1.0-26.
  EXPECT_EQ(Default(t), "efi/loader/entries/debian-6.1.0-28-amd64.conf");
  t.Write("efi/loader/loader.conf", "default arch.conf\n");
  EXPECT_EQ(Default(t), "efi/loader/entries/arch.conf") << "the id is the file name";
  t.Write("efi/loader/loader.conf", "default ARCH\n");
  EXPECT_EQ(Default(t), "efi/loader/entries/arch.conf") << "case-folded, and without .conf (kernelstub's form)";
  t.Write("efi/loader/loader.conf", "default nothing-*\n");
  EXPECT_EQ(Default(t), "efi/loader/entries/debian-6.1.0-28-amd64.conf") << "no match: the first in order";
  t.Write("efi/loader/loader.conf", "default @saved\n");
  EXPECT_EQ(Default(t).substr(0, 6), "error:") << "@saved: the entry booted last decides";
}

TEST(LoaderEntriesTest, WithoutADefaultTheSortOrderDecides) {
  TestTree t;
  t.Write("boot/efi/loader/loader.conf", "timeout 3\n");
  t.Write("boot/efi/loader/entries/b.conf", Entry("x=1"));
  t.Write("boot/efi/loader/entries/a.conf", Entry("x=2"));
  EXPECT_EQ(Default(t), "boot/efi/loader/entries/b.conf") << "ids compare downwards";
  // Entries with a sort-key come before those without; among them sort-key, then version down.
  t.Write("boot/efi/loader/entries/fedora-6.10.conf", Entry("x=3", "sort-key fedora\nversion 6.10\n"));
  t.Write("boot/efi/loader/entries/fedora-6.9.conf", Entry("x=4", "sort-key fedora\nversion 6.9\n"));
  EXPECT_EQ(Default(t), "boot/efi/loader/entries/fedora-6.10.conf");
  // No linux/efi/uki line: not an entry systemd-boot lists.
  t.Write("boot/efi/loader/entries/aaa.conf", "title broken\nsort-key aaa\noptions x=5\n");
  EXPECT_EQ(Default(t), "boot/efi/loader/entries/fedora-6.10.conf");
}

// Boot counting (BOOT_LOADER_SPECIFICATION.md, boot.c config_entry_parse_tries): "+LEFT-DONE"
// before ".conf"; an entry with no tries left sorts last, and the default glob still matches.
TEST(LoaderEntriesTest, BootCountingSuffixes) {
  TestTree t;
  t.Write("efi/loader/loader.conf", "");
  t.Write("efi/loader/entries/linux-6.9+0-3.conf", Entry("bad=1"));
  t.Write("efi/loader/entries/linux-6.8+2-1.conf", Entry("good=1"));
  EXPECT_EQ(Default(t), "efi/loader/entries/linux-6.8+2-1.conf") << "no tries left: last";
  t.Write("efi/loader/loader.conf", "default linux-6.9\n");
  EXPECT_EQ(Default(t), "efi/loader/entries/linux-6.9+0-3.conf") << "the counter is not part of the pattern's id";
  auto e = ParseLoaderEntry("x/linux-6.8+2-1.conf", Entry(""));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tries_left, 2);
  EXPECT_EQ(e->tries_done, 1);
  e = ParseLoaderEntry("x/linux-6.8+3.conf", Entry(""));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tries_left, 3);
  EXPECT_EQ(e->tries_done, 0);
  e = ParseLoaderEntry("x/a+b-c.conf", Entry(""));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tries_left, -1) << "not a counter";
}

TEST(LoaderEntriesTest, XbootldrEntriesAndTheEfiVariable) {
  TestTree t;
  t.Write("efi/loader/loader.conf", "default esp-entry\n");
  t.Write("efi/loader/entries/esp-entry.conf", Entry("x=1"));
  t.Write("boot/loader/entries/xbootldr-entry.conf", Entry("x=2"));
  EXPECT_EQ(Default(t), "efi/loader/entries/esp-entry.conf");
  std::string var("\x06\0\0\0", 4);
  for (char c : std::string("xbootldr-entry.conf")) var += std::string{c, '\0'};
  t.Write("sys/firmware/efi/efivars/LoaderEntryDefault-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
          var + std::string(2, '\0'));
  EXPECT_EQ(Default(t), "boot/loader/entries/xbootldr-entry.conf") << "LoaderEntryDefault wins over loader.conf";
}

TEST(LoaderEntriesTest, NoEspNoEntries) {
  TestTree t;
  EXPECT_EQ(Default(t).substr(0, 6), "error:");
  t.Write("efi/loader/loader.conf", "default x\n");
  EXPECT_NE(Default(t).find("no boot loader entry"), std::string::npos) << Default(t);
}

// The next boot of a systemd-boot system: the default entry's options (several lines joined),
// each token at its line; /etc/kernel/cmdline only where no Type #1 entry exists, else it is
// what later kernels get (later_file).
TEST(LoaderEntriesTest, NextBootIsTheDefaultEntrysOptions) {
  TestTree t;
  t.Write("efi/loader/loader.conf", "default *-6.8*\n");
  t.Write("efi/loader/entries/m-6.8.0-45.conf", "title x\nlinux /l\noptions root=UUID=1 ro\noptions iommu=pt\n");
  t.Write("efi/loader/entries/m-6.5.0-44.conf", Entry("root=UUID=1 ro iommu=soft"));
  auto root = sys::Root::Open(t.path());
  detect::Inventory inventory;
  BootContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
  NextBoot next = NextBootFromLoaderEntry(ctx);
  ASSERT_TRUE(next.cmdline) << next.why_unknown;
  EXPECT_EQ(*next.cmdline, "root=UUID=1 ro iommu=pt");
  const CmdlineTokenAt* iommu = DecidingToken(next, "iommu");
  ASSERT_NE(iommu, nullptr);
  EXPECT_EQ(iommu->file, "efi/loader/entries/m-6.8.0-45.conf");
  EXPECT_EQ(iommu->line, 4);
  EXPECT_TRUE(next.later_file.empty()) << "no /etc/kernel/cmdline";
  t.Write("etc/kernel/cmdline", "root=UUID=1 ro iommu=soft\n");
  next = NextBootFromLoaderEntry(ctx);
  EXPECT_EQ(next.later_file, "etc/kernel/cmdline");
  EXPECT_EQ(*next.cmdline, "root=UUID=1 ro iommu=pt") << "the entry still boots next";
  // UKIs only (no Type #1 entry): kernel-install's /etc/kernel/cmdline.
  std::filesystem::remove_all(t.Path("efi/loader/entries"));
  next = NextBootFromLoaderEntry(ctx);
  ASSERT_TRUE(next.cmdline);
  EXPECT_EQ(*next.cmdline, "root=UUID=1 ro iommu=soft");
}

}  // namespace
}  // namespace rocmtune::boot
