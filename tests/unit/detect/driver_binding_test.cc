// AMD GPUs amdgpu does not drive (detect/pci_gpus.h, detect/driver_binding.h), on small trees.
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "detect/inventory.h"
#include "detect/pci_gpus.h"
#include "detect/system_facts.h"
#include "driver_layouts.h"
#include "test_tree.h"

namespace rocmtune::detect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TestTree;

constexpr std::string_view kBindingSlot = "0000:03:00.0";
std::string AddPci(const TestTree& t, std::string_view slot, std::string_view vendor, std::string_view device,
                   std::string_view pci_class, std::string_view driver) {
  return testing::AddPciFunction(t.path(), slot, vendor, device, pci_class, driver);
}

// Navi 21 (RX 6800/6900).
void AddNavi21(const TestTree& t, std::string_view driver, std::string_view slot = kBindingSlot) {
  AddPci(t, slot, "0x1002", "0x73bf", "0x030000", driver);
}

sys::Root OpenBindingTree(const TestTree& t) {
  auto root = sys::Root::Open(t.path());
  if (!root) throw std::runtime_error(root.error().message);
  return std::move(*root);
}

Inventory DetectBinding(const TestTree& t) { return Detect(OpenBindingTree(t), DetectOptions{.use_libdrm = false}); }

std::vector<const Finding*> NotAmdgpu(const Inventory& inv) {
  std::vector<const Finding*> out;
  for (const Finding& f : inv.findings)
    if (f.id == "gpu.not-amdgpu") out.push_back(&f);
  return out;
}

std::string BindingMessages(const Inventory& inv) {
  std::string out;
  for (const Finding& f : inv.findings) out += fmt::format("{} [{}] {} | {}\n", f.id, f.subject, f.message, f.hint);
  return out;
}

TEST(PciClassTest, ParsesTheClassFileAndUeventsSpelling) {
  EXPECT_EQ(ParsePciClass("0x030000"), 0x030000u);
  EXPECT_EQ(ParsePciClass("30000"), 0x030000u);
  EXPECT_EQ(ParsePciClass("0x120000\n"), 0x120000u);
  EXPECT_FALSE(ParsePciClass(""));
  EXPECT_FALSE(ParsePciClass("display"));
  EXPECT_FALSE(ParsePciClass("0x1000000"));  // more than 24 bits
  EXPECT_TRUE(IsGpuClass(0x030000));
  EXPECT_TRUE(IsGpuClass(0x038000));
  EXPECT_TRUE(IsGpuClass(0x120000));
  EXPECT_FALSE(IsGpuClass(0x040300));  // the GPU's HDMI audio
  EXPECT_FALSE(IsGpuClass(0x060400));
}

TEST(PciGpusTest, ListsAmdGpusWithTheirDriverOnly) {
  TestTree t;
  AddNavi21(t, "");
  AddPci(t, "0000:03:00.1", "0x1002", "0xab28", "0x040300", "snd_hda_intel");
  AddPci(t, "0000:04:00.0", "0x10de", "0x2684", "0x030000", "");
  AddPci(t, "0000:05:00.0", "0x1002", "0x740f", "0x120000", "vfio-pci");
  std::vector<Finding> findings;
  PciScan scan = ScanPciGpus(OpenBindingTree(t), findings);
  EXPECT_TRUE(scan.listed);
  EXPECT_TRUE(findings.empty());
  ASSERT_EQ(scan.gpus.size(), 2u);
  EXPECT_EQ(scan.gpus[0].address.ToString(), "0000:03:00.0");
  EXPECT_EQ(scan.gpus[0].device_id, 0x73bf);
  EXPECT_FALSE(scan.gpus[0].driver);
  EXPECT_EQ(scan.gpus[1].address.ToString(), "0000:05:00.0");
  EXPECT_EQ(scan.gpus[1].class_code, 0x120000u);
  EXPECT_EQ(scan.gpus[1].driver, "vfio-pci");
}

TEST(PciGpusTest, ATreeWithoutThePciBusIsNotListed) {
  TestTree t;
  t.Mkdir("sys/class/drm");
  std::vector<Finding> findings;
  PciScan scan = ScanPciGpus(OpenBindingTree(t), findings);
  EXPECT_FALSE(scan.listed);
  EXPECT_TRUE(scan.gpus.empty());
  EXPECT_TRUE(findings.empty());
}

TEST(PciGpusTest, BadClassFilesGiveAClearResult) {
  TestTree t;
  // No class file: uevent's PCI_CLASS says it (captures keep only the uevent).
  std::string a = AddPci(t, "0000:03:00.0", "0x1002", "0x6818", "", "");
  t.Write(a + "/uevent", "PCI_CLASS=30000\nPCI_ID=1002:6818\nPCI_SLOT_NAME=0000:03:00.0\n");
  // Garbage: reported, not guessed.
  AddPci(t, "0000:04:00.0", "0x1002", "0x73bf", "display controller", "");
  // NUL bytes around a good value.
  std::string c = AddPci(t, "0000:05:00.0", "0x1002", "0x7550", "", "");
  t.Write(c + "/class", std::string("0x030000\n") + std::string(8, '\0'));
  // Neither class nor PCI_CLASS: cannot be told, left out without a word.
  AddPci(t, "0000:06:00.0", "0x1002", "0x7551", "", "");
  // A vendor file of NULs only: not AMD's.
  std::string e = AddPci(t, "0000:07:00.0", "0x1002", "0x7552", "0x030000", "");
  t.Write(e + "/vendor", std::string(6, '\0'));
  std::vector<Finding> findings;
  PciScan scan = ScanPciGpus(OpenBindingTree(t), findings);
  ASSERT_EQ(scan.gpus.size(), 2u);
  EXPECT_EQ(scan.gpus[0].address.ToString(), "0000:03:00.0");
  EXPECT_EQ(scan.gpus[0].device_id, 0x6818);
  EXPECT_EQ(scan.gpus[1].address.ToString(), "0000:05:00.0");
  EXPECT_EQ(scan.gpus[1].class_code, 0x030000u);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "detect.read-error");
  EXPECT_EQ(findings[0].subject, "0000:04:00.0");
  EXPECT_THAT(findings[0].message, HasSubstr("display controller"));
}

TEST(DriverBindingTest, AGpuWithNoDriverIsAWarningForThatGpu) {
  TestTree t;
  AddNavi21(t, "");
  Inventory inv = DetectBinding(t);
  EXPECT_TRUE(inv.gpus.empty());
  auto found = NotAmdgpu(inv);
  ASSERT_EQ(found.size(), 1u) << BindingMessages(inv);
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_EQ(found[0]->subject, "0000:03:00.0");
  EXPECT_EQ(found[0]->gpu, "0000:03:00.0");
  EXPECT_THAT(found[0]->message, HasSubstr("(1002:73bf) has no driver and the amdgpu module is not loaded"));
  EXPECT_THAT(found[0]->hint, HasSubstr("modprobe amdgpu"));
  ASSERT_EQ(inv.not_amdgpu.size(), 1u);
  EXPECT_FALSE(inv.not_amdgpu[0].driver);
  EXPECT_TRUE(inv.pci_listed);
}

TEST(DriverBindingTest, AmdgpuLoadedButNotBoundSaysSo) {
  TestTree t;
  AddNavi21(t, "");
  t.Mkdir("sys/module/amdgpu/parameters");
  Inventory inv = DetectBinding(t);
  auto found = NotAmdgpu(inv);
  ASSERT_EQ(found.size(), 1u) << BindingMessages(inv);
  EXPECT_THAT(found[0]->message, HasSubstr("amdgpu is loaded but did not take it"));
  EXPECT_THAT(found[0]->hint, HasSubstr("dmesg"));
}

TEST(DriverBindingTest, NomodesetIsNamed) {
  TestTree t;
  AddNavi21(t, "");
  t.Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro nomodeset\n");
  auto found = NotAmdgpu(DetectBinding(t));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_THAT(found[0]->message, HasSubstr("nomodeset"));
  // amdgpu.modeset=1 overrides it (amdgpu_pci_probe), and an accelerator is not a display GPU.
  t.Write("proc/cmdline", "ro nomodeset amdgpu.modeset=1\n");
  EXPECT_THAT(NotAmdgpu(DetectBinding(t))[0]->message, Not(HasSubstr("nomodeset")));
}

TEST(DriverBindingTest, VfioIsInfoAndRadeonAWarningWithItsFix) {
  TestTree t;
  AddNavi21(t, "vfio-pci");
  AddPci(t, "0000:04:00.0", "0x1002", "0x6818", "0x030000", "radeon");
  Inventory inv = DetectBinding(t);
  auto found = NotAmdgpu(inv);
  ASSERT_EQ(found.size(), 2u) << BindingMessages(inv);
  EXPECT_EQ(found[0]->severity, Severity::kInfo);
  EXPECT_EQ(found[0]->gpu, "");  // deliberate: counts against no GPU
  EXPECT_THAT(found[0]->message, HasSubstr("bound to vfio-pci (held for a virtual machine)"));
  EXPECT_EQ(found[1]->severity, Severity::kWarning);
  EXPECT_EQ(found[1]->gpu, "0000:04:00.0");
  EXPECT_THAT(found[1]->message, HasSubstr("driven by radeon"));
  EXPECT_THAT(found[1]->hint, HasSubstr("amdgpu.si_support=1 radeon.si_support=0"));
  EXPECT_THAT(found[1]->hint, HasSubstr("amdgpu.cik_support=1 radeon.cik_support=0"));
}

TEST(DriverBindingTest, OneFindingPerDeviceWithItsDrmCard) {
  TestTree t;
  // The radeon card as both a PCI function and a DRM card (hd7870's layout).
  const std::string dev = AddPci(t, "0000:03:00.0", "0x1002", "0x6818", "0x030000", "radeon");
  t.Symlink("sys/class/drm/card0", "../../devices/pci0000:00/0000:03:00.0/drm/card0");
  t.Symlink(dev + "/drm/card0/device", "../../../0000:03:00.0");
  t.Write(dev + "/uevent", "DRIVER=radeon\nPCI_CLASS=30000\nPCI_ID=1002:6818\nPCI_SLOT_NAME=0000:03:00.0\n");
  // An amdgpu GPU on the bus is the inventory's, not a finding.
  AddPci(t, "0000:05:00.0", "0x1002", "0x73bf", "0x030000", "amdgpu");
  Inventory inv = DetectBinding(t);
  auto found = NotAmdgpu(inv);
  ASSERT_EQ(found.size(), 1u) << BindingMessages(inv);
  EXPECT_EQ(found[0]->subject, "0000:03:00.0");
}

}  // namespace
}  // namespace rocmtune::detect
