// doctor's machine check of PCIe atomics: the flags of the GPU's KFD io_link to the CPU, read at
// detection in the kernel's order up to that link (core/detect/kfd_io_links.cc), reported by
// core/diagnose/machine_checks.cc CheckAtomics.
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "detect/kfd_io_links.h"
#include "diagnose/checks.h"
#include "test_tree.h"

namespace rocmtune::diagnose {
namespace {

using testing::TestTree;

constexpr int kCpuNode = 0;
constexpr int kGpuNode = 1;
constexpr int kPeerNode = 2;

class AtomicsCheckTest : public ::testing::Test {
 protected:
  // io_links/N of the GPU node: type 2 (PCIe) or 11 (XGMI), the node it leads to, its flags.
  void Link(int n, int type, int to, unsigned flags) {
    tree_.Write(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/io_links/{}/properties", kGpuNode, n),
                fmt::format("type {}\nversion_major 0\nnode_from {}\nnode_to {}\nweight 20\nflags {}\n", type, kGpuNode,
                            to, flags));
  }

  std::vector<std::string> Atomics() {
    detect::Inventory inv;
    for (int node : {kGpuNode, kPeerNode}) {
      detect::Gpu g;
      g.id = fmt::format("0000:0{}:00.0", node);
      g.apu = false;
      g.kfd_node = node;
      inv.gpus.push_back(g);
    }
    auto root = sys::Root::Open(tree_.path());
    detect::ReadCpuLinkAtomics(*root, inv.gpus);
    std::vector<std::string> subjects;
    for (const Finding& f : MachineChecks(*root, inv, false))
      if (f.id == "pcie.no-atomics") subjects.push_back(f.subject);
    return subjects;
  }

  TestTree tree_;
};

// flags 0x1 enabled, 0x4 | 0x8 the two NO_ATOMICS bits (kfd_crat.h).
TEST_F(AtomicsCheckTest, TheCpuLinkWithoutAtomicsIsReported) {
  Link(0, 2, kCpuNode, 0x1 | 0x4 | 0x8);
  EXPECT_EQ(Atomics(), std::vector<std::string>{"0000:01:00.0"});
}

TEST_F(AtomicsCheckTest, ACpuLinkWithAtomicsIsNotReported) {
  Link(0, 2, kCpuNode, 0x1);
  Link(1, 11, kPeerNode, 0x1);
  EXPECT_TRUE(Atomics().empty());
}

// Links to other GPUs before the CPU link are read too: a flagged one there counts.
TEST_F(AtomicsCheckTest, LinksBeforeTheCpuLinkAreRead) {
  Link(0, 2, kPeerNode, 0x1 | 0x4);
  Link(1, 2, kCpuNode, 0x1);
  EXPECT_EQ(Atomics(), std::vector<std::string>{"0000:01:00.0"});
}

// Reading stops at the CPU link: what a link after it says is not about the GPU's link to the CPU.
TEST_F(AtomicsCheckTest, LinksAfterTheCpuLinkAreNotRead) {
  Link(0, 2, kCpuNode, 0x1);
  Link(1, 2, kPeerNode, 0x1 | 0x8);
  EXPECT_TRUE(Atomics().empty());
}

// The kernel's order is numeric: io_links/10 comes after io_links/9, not after io_links/1.
TEST_F(AtomicsCheckTest, LinksAreReadInNumericOrder) {
  for (int n = 0; n < 10; ++n) Link(n, 11, kPeerNode, 0x1);
  Link(10, 2, kCpuNode, 0x1 | 0x4 | 0x8);
  EXPECT_EQ(Atomics(), std::vector<std::string>{"0000:01:00.0"});
}

// A capture with a damaged or missing link file: that link is skipped, the next is read.
TEST_F(AtomicsCheckTest, AnUnreadableLinkIsSkipped) {
  tree_.Mkdir(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/io_links/0", kGpuNode));
  Link(1, 2, kCpuNode, 0xC);
  EXPECT_EQ(Atomics(), std::vector<std::string>{"0000:01:00.0"});
}

// The kernel numbers a node's links 0, 1, ... without gaps (kfd_topology.c
// kfd_build_sysfs_node_entry), so the walk reads io_links/N until one is missing instead of
// listing the directory: a link after a gap is not KFD's and is not read.
TEST_F(AtomicsCheckTest, ALinkAfterAMissingOneIsNotRead) {
  Link(1, 2, kCpuNode, 0xC);
  EXPECT_TRUE(Atomics().empty());
}

// The check reads no file: what it reports is what detection read (rocmtuned keeps its inventory,
// so a Describe reads no io_links).
TEST_F(AtomicsCheckTest, TheCheckReadsWhatDetectionRead) {
  Link(0, 2, kCpuNode, 0x1 | 0x4 | 0x8);
  detect::Inventory inv;
  detect::Gpu g;
  g.id = "0000:01:00.0";
  g.apu = false;
  g.kfd_node = kGpuNode;
  inv.gpus.push_back(g);
  auto root = sys::Root::Open(tree_.path());
  // Not read at detection: nothing is reported, though the file says so.
  for (const Finding& f : MachineChecks(*root, inv, false)) EXPECT_NE(f.id, "pcie.no-atomics");
  // Detection's answer, with the file gone: reported.
  detect::ReadCpuLinkAtomics(*root, inv.gpus);
  ASSERT_EQ(inv.gpus[0].cpu_link_no_atomics, std::optional<bool>(true));
  std::filesystem::remove_all(tree_.Path(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/io_links", kGpuNode)));
  int reported = 0;
  for (const Finding& f : MachineChecks(*root, inv, false)) reported += f.id == "pcie.no-atomics";
  EXPECT_EQ(reported, 1);
}

// An APU's links are not read: its memory is the CPU's, there is no PCIe link to speak of.
TEST_F(AtomicsCheckTest, AnApusLinksAreNotRead) {
  Link(0, 2, kCpuNode, 0x1 | 0x4 | 0x8);
  detect::Gpu g;
  g.id = "0000:01:00.0";
  g.apu = true;
  g.kfd_node = kGpuNode;
  std::vector<detect::Gpu> gpus{g};
  detect::ReadCpuLinkAtomics(*sys::Root::Open(tree_.path()), gpus);
  EXPECT_FALSE(gpus[0].cpu_link_no_atomics.has_value());
}

}  // namespace
}  // namespace rocmtune::diagnose
