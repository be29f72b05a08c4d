// Detect() and the status document on worlds a broken driver, a bad capture or a hostile
// user could produce: every case names what must come out, not only that nothing crashed.
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/status_json.h"
#include "detect/inventory.h"
#include "test_tree.h"
#include "util/json_text.h"

namespace rocmtune::detect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TestTree;

constexpr std::string_view kSlot = "0000:03:00.0";

std::string Uevent(std::string_view driver, std::string_view pci_id, std::string_view slot) {
  return fmt::format("DRIVER={}\nPCI_CLASS=30000\nPCI_ID={}\nPCI_SUBSYS_ID=1DA2:E409\nPCI_SLOT_NAME={}\n", driver,
                     pci_id, slot);
}

// A DRM card as sysfs lays it out: the class entry links into the PCI device tree and the
// card's `device` links back up to the PCI device dir. Returns that dir (root-relative).
std::string AddCard(const TestTree& t, int index, std::string_view slot, std::string_view uevent,
                    std::string_view revision = "0xc1\n") {
  std::string dev = fmt::format("sys/devices/pci0000:00/{}", slot);
  t.Symlink(fmt::format("sys/class/drm/card{}", index),
            fmt::format("../../devices/pci0000:00/{}/drm/card{}", slot, index));
  t.Symlink(fmt::format("{}/drm/card{}/device", dev, index), fmt::format("../../../{}", slot));
  t.Write(dev + "/uevent", uevent);
  t.Write(dev + "/revision", revision);
  return dev;
}

// RX 5700 XT: Navi 10, 1002:731F rev c1, bound to amdgpu.
std::string AddNavi10(const TestTree& t, int index = 0, std::string_view slot = kSlot) {
  return AddCard(t, index, slot, Uevent("amdgpu", "1002:731F", slot));
}

// Its KFD node (kfd_topology.c); location_id is bus << 8 | device << 3 | function.
std::string Navi10Properties(unsigned location_id = 0x300) {
  return fmt::format(
      "cpu_cores_count 0\nsimd_count 80\ngfx_target_version 100100\nvendor_id 4098\n"
      "device_id 29471\nlocation_id {}\ndomain 0\ndrm_render_minor 128\nunique_id 0\nnum_xcc 1\n",
      location_id);
}

void AddKfdNode(const TestTree& t, std::string_view name, std::string_view properties,
                std::string_view gpu_id = "53911\n") {
  t.Write(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/properties", name), properties);
  t.Write(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/gpu_id", name), gpu_id);
}

// Enough ".." to climb from anywhere in a temp tree to the host's "/".
std::string Climb() {
  std::string up;
  for (int i = 0; i < 32; ++i) up += "../";
  return up;
}

Inventory DetectTree(const TestTree& t) {
  auto root = sys::Root::Open(t.path());
  if (!root) throw std::runtime_error(root.error().message);
  return Detect(*root, DetectOptions{.use_libdrm = false});
}

std::string Dump(const Inventory& inv) {
  std::string out;
  EXPECT_NO_THROW(out = JsonText(api::StatusJson(inv), -1));
  return out;
}

const Finding* FindingFor(const Inventory& inv, std::string_view id, std::string_view subject) {
  for (const Finding& f : inv.findings)
    if (f.id == id && f.subject == subject) return &f;
  return nullptr;
}

bool HasFindingPrefix(const Inventory& inv, std::string_view prefix) {
  for (const Finding& f : inv.findings)
    if (f.id.starts_with(prefix)) return true;
  return false;
}

std::string PadTo(std::string s, size_t size) {
  s.resize(size, '\0');
  return s;
}

TEST(HostileWorldTest, NulPaddingAndTrailingSpacesAreIgnored) {
  TestTree t;
  std::string dev = AddNavi10(t);
  t.Write(dev + "/uevent", Uevent("amdgpu", "1002:731F", kSlot) + std::string(4096, '\0') + "   \n ");
  // sysfs attributes are at most a page: pad the revision up to exactly one.
  t.Write(dev + "/revision", PadTo("0xc1  \n", 4096));
  AddKfdNode(t, "1", Navi10Properties() + std::string(4096, '\0') + "  ", PadTo("53911\n", 64));
  Inventory inv = DetectTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u) << Dump(inv);
  const Gpu& gpu = inv.gpus[0];
  EXPECT_EQ(gpu.id, "0000:03:00.0");
  EXPECT_EQ(gpu.pci_id, "1002:731f");
  EXPECT_EQ(gpu.revision, "0xc1");
  EXPECT_EQ(gpu.subsystem, "1da2:e409");
  EXPECT_EQ(gpu.gfx_target, "gfx1010");
  EXPECT_EQ(gpu.kfd_node, 1);
  EXPECT_EQ(gpu.identified_by, "kfd");
  EXPECT_EQ(gpu.marketing_name, "AMD Radeon RX 5700 XT");
  EXPECT_FALSE(HasFindingPrefix(inv, "detect.")) << Dump(inv);
  EXPECT_THAT(Dump(inv), Not(HasSubstr("\\u0000")));
}

TEST(HostileWorldTest, UeventWithoutPciIdListsTheGpuAsUnknown) {
  TestTree t;
  std::string dev = AddNavi10(t);
  t.Write(dev + "/uevent", fmt::format("DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_SLOT_NAME={}\n", kSlot));
  Inventory inv = DetectTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u);
  const Gpu& gpu = inv.gpus[0];
  EXPECT_EQ(gpu.id, "0000:03:00.0");
  EXPECT_FALSE(gpu.pci_id);
  EXPECT_FALSE(gpu.device_id);
  EXPECT_FALSE(gpu.gfx_target);
  EXPECT_FALSE(gpu.family);
  EXPECT_EQ(gpu.identified_by, "none");
  EXPECT_EQ(gpu.marketing_name, "AMD Radeon Graphics");
  EXPECT_TRUE(FindingFor(inv, "gpu.gfx-target-unknown", "0000:03:00.0")) << Dump(inv);
  auto doc = api::StatusJson(inv);
  EXPECT_TRUE(doc["gpus"][0]["pci_id"].is_null());
  EXPECT_TRUE(doc["gpus"][0]["gfx_target"].is_null());
}

TEST(HostileWorldTest, GarbageKfdNumbersStayUnknown) {
  TestTree t;
  AddKfdNode(t, "1",
             "simd_count 40\ngfx_target_version 99999999999999999999\nvendor_id 4098\n"
             "location_id -5\ndevice_id abc\ndomain 0\n");
  // Fits 64 bits, not the field: must not be truncated into a plausible value.
  AddKfdNode(t, "2",
             "simd_count 40\ngfx_target_version 4295067396\nvendor_id 4098\n"
             "location_id 4294967296\ndevice_id 95007\ndomain 0\n");
  Inventory inv = DetectTree(t);
  ASSERT_EQ(inv.gpus.size(), 2u) << Dump(inv);
  for (const Gpu& gpu : inv.gpus) {
    SCOPED_TRACE(gpu.id);
    EXPECT_EQ(gpu.id, fmt::format("kfd-node-{}", gpu.kfd_node.value_or(-1)));  // no address was guessed
    EXPECT_FALSE(gpu.pci_id);
    EXPECT_FALSE(gpu.device_id);
    EXPECT_FALSE(gpu.gfx_target);
    EXPECT_FALSE(gpu.gfx_target_version);
    EXPECT_EQ(gpu.identified_by, "none");
    EXPECT_TRUE(FindingFor(inv, "gpu.gfx-target-unknown", gpu.id));
  }
  EXPECT_EQ(inv.gpus[0].kfd_node, 1);
  EXPECT_EQ(inv.gpus[1].kfd_node, 2);
  EXPECT_FALSE(HasFindingPrefix(inv, "detect.kfd-no-domain"));
  std::string json = Dump(inv);
  EXPECT_THAT(json, Not(HasSubstr("100100")));     // 4295067396 mod 2^32
  EXPECT_THAT(json, Not(HasSubstr("1002:731f")));  // 95007 mod 2^16 = 0x731f
}

TEST(HostileWorldTest, HugeUeventIsAReadErrorNamingThePath) {
  TestTree t;
  std::string dev = AddNavi10(t);
  t.Write(dev + "/uevent", "DRIVER=amdgpu\nPCI_ID=1002:731F\n" + std::string(5 << 20, 'A'));
  AddNavi10(t, 1, "0000:04:00.0");
  Inventory inv = DetectTree(t);
  const Finding* f = FindingFor(inv, "detect.read-error", "card0");
  ASSERT_TRUE(f) << Dump(inv);
  EXPECT_THAT(f->what, HasSubstr(t.path() + "/sys/class/drm/card0/device/uevent"));
  EXPECT_THAT(f->what, HasSubstr("larger than"));
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].card, "card1");
  EXPECT_EQ(inv.gpus[0].pci_id, "1002:731f");
}

TEST(HostileWorldTest, FifoUeventIsAReadErrorAndOtherGpusRemain) {
  TestTree t;
  std::string dev = AddNavi10(t);
  ASSERT_EQ(::unlink(t.Path(dev + "/uevent").c_str()), 0);
  ASSERT_EQ(::mkfifo(t.Path(dev + "/uevent").c_str(), 0600), 0);  // no writer: a blocking read would hang
  AddNavi10(t, 1, "0000:04:00.0");
  Inventory inv = DetectTree(t);
  const Finding* f = FindingFor(inv, "detect.read-error", "card0");
  ASSERT_TRUE(f) << Dump(inv);
  EXPECT_THAT(f->what, HasSubstr("not a regular file"));
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].id, "0000:04:00.0");
}

// Exit codes of the unprivileged child below.
enum ChildExit { kChildOk = 0, kChildNoFinding = 11, kChildWrongGpus };

int CheckUnreadableUevent(const TestTree& t) {
  Inventory inv = DetectTree(t);
  const Finding* f = FindingFor(inv, "detect.read-error", "card0");
  if (!f || f->what.find(std::strerror(EACCES)) == std::string::npos) return kChildNoFinding;
  if (inv.gpus.size() != 1 || inv.gpus[0].card != "card1") return kChildWrongGpus;
  return kChildOk;
}

TEST(HostileWorldTest, UnreadableUeventIsAReadErrorAndOtherGpusRemain) {
  TestTree t;
  ASSERT_EQ(::chmod(t.path().c_str(), 0755), 0);  // mkdtemp's 0700 would hide everything from "nobody"
  std::string dev = AddNavi10(t);
  t.Chmod(dev + "/uevent", 0);
  AddNavi10(t, 1, "0000:04:00.0");
  // Root ignores permission bits (CAP_DAC_OVERRIDE): detect as "nobody" in a child.
  int result = testing::RunAsNobody(
      [](const void* tree) { return CheckUnreadableUevent(*static_cast<const TestTree*>(tree)); }, &t);
  if (result == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(result, kChildOk)
      << "11: no detect.read-error with EACCES for card0, 12: card1 was not the one GPU detected";
}

TEST(HostileWorldTest, CardSymlinkLoopIsAReadErrorAndOtherCardsRemain) {
  TestTree t;
  t.Symlink("sys/class/drm/card0", "card0");
  AddNavi10(t, 1, "0000:04:00.0");
  Inventory inv = DetectTree(t);
  EXPECT_TRUE(FindingFor(inv, "detect.read-error", "card0")) << Dump(inv);
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].card, "card1");
  EXPECT_EQ(inv.gpus[0].gfx_target, "gfx1010");
}

TEST(HostileWorldTest, CardLinkedOutsideTheRootIsNotDetected) {
  // A complete RX 6900 XT (1002:73BF) outside the world...
  TestTree outside;
  std::string outside_dev = AddCard(outside, 1, "0000:0e:00.0", Uevent("amdgpu", "1002:73BF", "0000:0e:00.0"));
  outside.Write(outside_dev + "/product_name", "OUTSIDE-THE-ROOT\n");
  {
    Inventory there = DetectTree(outside);
    ASSERT_EQ(there.gpus.size(), 1u);
    ASSERT_EQ(there.gpus[0].pci_id, "1002:73bf");
  }
  // ...and a world whose card1 links to it with enough ".." to reach the host's "/".
  TestTree t;
  AddNavi10(t);
  t.Symlink("sys/class/drm/card1",
            Climb() + outside.path().substr(1) + "/sys/devices/pci0000:00/0000:0e:00.0/drm/card1");
  std::ifstream host(t.Path("sys/class/drm/card1/device/uevent"));
  ASSERT_THAT(std::string(std::istreambuf_iterator<char>(host), {}), HasSubstr("1002:73BF"))
      << "the link should escape when the host follows it";

  Inventory inv = DetectTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u) << Dump(inv);
  EXPECT_EQ(inv.gpus[0].card, "card0");
  EXPECT_TRUE(FindingFor(inv, "detect.read-error", "card1")) << Dump(inv);
  std::string json = Dump(inv);
  EXPECT_THAT(json, Not(HasSubstr("73bf")));
  EXPECT_THAT(json, Not(HasSubstr("73BF")));
  EXPECT_THAT(json, Not(HasSubstr("0000:0e:00.0")));
  EXPECT_THAT(json, Not(HasSubstr("OUTSIDE-THE-ROOT")));
}

TEST(HostileWorldTest, NonNumericKfdNodeNamesAreIgnored) {
  TestTree t;
  AddKfdNode(t, "1", Navi10Properties());
  for (std::string_view name : {"foo", "-1", "0x2", "1e3", "999999999999"})
    AddKfdNode(t, name,
               "simd_count 40\ngfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\n"
               "location_id 1024\ndomain 0\n");
  Inventory inv = DetectTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u) << Dump(inv);
  EXPECT_EQ(inv.gpus[0].kfd_node, 1);
  EXPECT_EQ(inv.gpus[0].pci_id, "1002:731f");
  EXPECT_THAT(Dump(inv), Not(HasSubstr("744c")));
  EXPECT_FALSE(HasFindingPrefix(inv, "detect.")) << Dump(inv);
}

// The kernel names nodes "%d"; "01" and "1 " parse to 1 too but are other directories.
TEST(HostileWorldTest, NonCanonicalKfdNodeNamesDoNotDuplicateANode) {
  TestTree t;
  AddKfdNode(t, "1", Navi10Properties());
  AddKfdNode(t, "01",
             "simd_count 40\ngfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\n"
             "location_id 1024\ndomain 0\n");
  AddKfdNode(t, "1 ", Navi10Properties(0x500));
  Inventory inv = DetectTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u) << Dump(inv);
  EXPECT_EQ(inv.gpus[0].kfd_node, 1);
  EXPECT_EQ(inv.gpus[0].id, "0000:03:00.0");
}

TEST(HostileWorldTest, EmptyFilesYieldNoGpu) {
  TestTree t;
  AddCard(t, 0, kSlot, "", "");
  AddKfdNode(t, "1", "", "");
  t.Write("etc/os-release", "");
  t.Write("proc/cmdline", "");
  t.Write("proc/sys/kernel/osrelease", "");
  Inventory inv = DetectTree(t);
  EXPECT_TRUE(inv.gpus.empty()) << Dump(inv);
  EXPECT_FALSE(HasFindingPrefix(inv, "gpu.")) << Dump(inv);
  EXPECT_FALSE(inv.system.kernel);
  EXPECT_FALSE(inv.system.cmdline);
  EXPECT_FALSE(inv.system.os.id);
  EXPECT_FALSE(inv.system.os.pretty_name);
  EXPECT_THAT(Dump(inv), HasSubstr("\"gpus\":[]"));
}

TEST(HostileWorldTest, RadeonBoundCardIsReportedNotManaged) {
  TestTree t;
  AddCard(t, 0, kSlot, Uevent("radeon", "1002:6819", kSlot), "0x00\n");
  AddCard(t, 1, "0000:04:00.0", Uevent("nvidia", "10DE:2684", "0000:04:00.0"), "0xa1\n");
  Inventory inv = DetectTree(t);
  EXPECT_TRUE(inv.gpus.empty()) << Dump(inv);
  const Finding* f = FindingFor(inv, "gpu.not-amdgpu", "0000:03:00.0");
  ASSERT_TRUE(f) << Dump(inv);
  EXPECT_THAT(f->what, HasSubstr("radeon"));
  EXPECT_THAT(f->what, HasSubstr("1002:6819"));
  EXPECT_FALSE(FindingFor(inv, "gpu.not-amdgpu", "0000:04:00.0"));  // another vendor's GPU is not ours to mention
}

TEST(HostileWorldTest, CrlfOsReleaseAndNulTerminatedCmdline) {
  TestTree t;
  t.Write("etc/os-release",
          "NAME=\"Ubuntu\"\r\nID=ubuntu\r\nVERSION_ID=\"24.04\"\r\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\" \r\n");
  t.Write("proc/cmdline", std::string("BOOT_IMAGE=/boot/vmlinuz-6.8.0 ro quiet iommu=pt") + '\0');
  t.Write("proc/sys/kernel/osrelease", "6.8.0-45-generic\n" + std::string(3, '\0'));
  Inventory inv = DetectTree(t);
  EXPECT_EQ(inv.system.os.id, "ubuntu");
  EXPECT_EQ(inv.system.os.version_id, "24.04");
  EXPECT_EQ(inv.system.os.pretty_name, "Ubuntu 24.04.1 LTS");
  EXPECT_EQ(inv.system.cmdline, "BOOT_IMAGE=/boot/vmlinuz-6.8.0 ro quiet iommu=pt");
  EXPECT_EQ(inv.system.kernel, "6.8.0-45-generic");
  EXPECT_EQ(inv.system.iommu.mode, "passthrough");  // the last token is "iommu=pt", not "iommu=pt\0"
}

TEST(HostileWorldTest, InvalidUtf8ProductNameDoesNotBreakTheDump) {
  TestTree t;
  // Revision ee is in no amdgpu.ids, so the sysfs product_name names the GPU.
  std::string dev = AddCard(t, 0, kSlot, Uevent("amdgpu", "1002:731F", kSlot), "0xee\n");
  t.Write(dev + "/product_name", "Radeon \xff\xfe Pro\n");
  Inventory inv = DetectTree(t);
  ASSERT_EQ(inv.gpus.size(), 1u);
  ASSERT_THAT(inv.gpus[0].marketing_name, HasSubstr("\xff"));
  std::string out;
  EXPECT_NO_THROW(out = JsonText(api::StatusJson(inv), -1));
  EXPECT_THAT(out, HasSubstr("Radeon \xEF\xBF\xBD\xEF\xBF\xBD Pro"));  // U+FFFD each
}

TEST(HostileWorldTest, InvalidUtf8CmdlineDoesNotBreakTheDump) {
  TestTree t;
  t.Write("proc/cmdline", "ro quiet \xff\xfe\n");
  Inventory inv = DetectTree(t);
  ASSERT_TRUE(inv.system.cmdline);
  ASSERT_THAT(*inv.system.cmdline, HasSubstr("\xff"));
  std::string out;
  EXPECT_NO_THROW(out = JsonText(api::StatusJson(inv), -1));
  EXPECT_THAT(out, HasSubstr("ro quiet \xEF\xBF\xBD"));
}

}  // namespace
}  // namespace rocmtune::detect
