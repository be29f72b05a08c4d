// AMD GPUs amdgpu does not drive (detect/pci_gpus.h, detect/driver_binding.h) and what keeps
// amdgpu-dkms out under Secure Boot (detect/amdgpu_dkms.h, detect/efi_vars.h), on small trees.
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "detect/amdgpu_dkms.h"
#include "detect/efi_vars.h"
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
constexpr std::string_view kSecureBootVar = "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
constexpr std::string_view kMokListVar = "sys/firmware/efi/efivars/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23";
constexpr std::string_view kDer = testing::kDkmsCertificate;

// efivarfs: 4 bytes of attributes, then the data.
std::string BindingEfiVar(std::string_view data) { return std::string("\x06\0\0\0", 4) + std::string(data); }

std::string AddPci(const TestTree& t, std::string_view slot, std::string_view vendor, std::string_view device,
                   std::string_view pci_class, std::string_view driver) {
  return testing::AddPciFunction(t.path(), slot, vendor, device, pci_class, driver);
}

// Navi 21 (RX 6800/6900).
void AddNavi21(const TestTree& t, std::string_view driver, std::string_view slot = kBindingSlot) {
  AddPci(t, slot, "0x1002", "0x73bf", "0x030000", driver);
}

void SetSecureBoot(const TestTree& t, bool on = true) { testing::SetSecureBoot(t.path(), on); }
void InstallAmdgpuDkms(const TestTree& t) { testing::InstallAmdgpuDkms(t.path()); }

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
  for (const Finding& f : inv.findings) out += fmt::format("{} [{}] {} | {}\n", f.id, f.subject, f.what, f.fix.text);
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
  EXPECT_THAT(findings[0].what, HasSubstr("display controller"));
}

TEST(EfiVarsTest, SecureBootIsReadFromItsVariable) {
  TestTree t;
  EXPECT_FALSE(SecureBoot(OpenBindingTree(t)));
  t.Write(kSecureBootVar, std::string("\x06\0\0", 3));  // shorter than the attributes
  EXPECT_FALSE(SecureBoot(OpenBindingTree(t)));
  SetSecureBoot(t);
  EXPECT_EQ(SecureBoot(OpenBindingTree(t)), true);
  SetSecureBoot(t, false);
  EXPECT_EQ(SecureBoot(OpenBindingTree(t)), false);
}

TEST(EfiVarsTest, MokListHasFindsTheCertificateInEitherPlace) {
  TestTree t;
  EXPECT_FALSE(MokListHas(OpenBindingTree(t), kDer));  // no list: unknown
  t.Write(kMokListVar, BindingEfiVar("\xa1\x59\xc0\xa5 some other key"));
  EXPECT_EQ(MokListHas(OpenBindingTree(t), kDer), false);
  t.Write("sys/firmware/efi/mok-variables/MokListRT", std::string("\xa1\x59\xc0\xa5") + std::string(kDer));
  EXPECT_EQ(MokListHas(OpenBindingTree(t), kDer), true);
  EXPECT_FALSE(MokImportPending(OpenBindingTree(t)));
  t.Write("sys/firmware/efi/efivars/MokNew-605dab50-e046-4300-abb6-3dd810dd8b23", BindingEfiVar("key"));
  EXPECT_TRUE(MokImportPending(OpenBindingTree(t)));
}

TEST(AmdgpuDkmsTest, FoundByItsDkmsTreeOrDpkg) {
  TestTree t;
  EXPECT_FALSE(DetectAmdgpuDkms(OpenBindingTree(t), {}));
  t.Write("var/lib/dpkg/status",
          "Package: amdgpu-dkms-firmware\nStatus: install ok installed\nVersion: 1:6.10.5\n\n"
          "Package: amdgpu-dkms\nStatus: deinstall ok config-files\nVersion: 1:6.10.5\n");
  EXPECT_FALSE(DetectAmdgpuDkms(OpenBindingTree(t), {}));  // removed, and its firmware package is not it
  t.Write("var/lib/dpkg/status", "Package: amdgpu-dkms\nStatus: install ok installed\nVersion: 1:6.10.5\n");
  auto from_dpkg = DetectAmdgpuDkms(OpenBindingTree(t), {});
  ASSERT_TRUE(from_dpkg);
  EXPECT_THAT(from_dpkg->evidence, HasSubstr("amdgpu-dkms 1:6.10.5"));
  InstallAmdgpuDkms(t);
  auto from_tree = DetectAmdgpuDkms(OpenBindingTree(t), {});
  ASSERT_TRUE(from_tree);
  EXPECT_THAT(from_tree->evidence, HasSubstr("var/lib/dkms/amdgpu/6.10.5-2084815.24.04"));
}

TEST(AmdgpuDkmsTest, TheCertificateIsWhereDkmsPutsIt) {
  TestTree t;
  InstallAmdgpuDkms(t);
  auto none = DetectAmdgpuDkms(OpenBindingTree(t), {});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->certificate);
  EXPECT_EQ(none->certificate_expected, "var/lib/dkms/mok.pub");
  OsRelease ubuntu;
  ubuntu.id = "ubuntu";
  EXPECT_EQ(DetectAmdgpuDkms(OpenBindingTree(t), ubuntu)->certificate_expected, "var/lib/shim-signed/mok/MOK.der");
  t.Write("var/lib/dkms/mok.pub", kDer);
  EXPECT_EQ(DetectAmdgpuDkms(OpenBindingTree(t), ubuntu)->certificate, "var/lib/dkms/mok.pub");
  t.Write("etc/dkms/framework.conf.d/sign.conf", "mok_certificate=\"/root/keys/mok.der\"\n");
  auto configured = DetectAmdgpuDkms(OpenBindingTree(t), {});
  EXPECT_EQ(configured->certificate_expected, "root/keys/mok.der");
  EXPECT_FALSE(configured->certificate);
}

TEST(AmdgpuDkmsTest, TheCauseNeedsSecureBootAndDkmsAndAKeyNotEnrolled) {
  AmdgpuDkms dkms{"/var/lib/dkms/amdgpu/6.10.5", "var/lib/dkms/mok.pub", "var/lib/dkms/mok.pub", false, false};
  EXPECT_FALSE(DkmsSignatureCause(false, dkms));
  EXPECT_FALSE(DkmsSignatureCause(std::nullopt, dkms));
  EXPECT_FALSE(DkmsSignatureCause(true, std::nullopt));
  auto not_enrolled = DkmsSignatureCause(true, dkms);
  ASSERT_TRUE(not_enrolled);
  EXPECT_THAT(not_enrolled->why, HasSubstr("not enrolled"));
  EXPECT_THAT(not_enrolled->fix, HasSubstr("mokutil --import /var/lib/dkms/mok.pub"));
  EXPECT_THAT(not_enrolled->fix, HasSubstr("remove amdgpu-dkms"));
  EXPECT_THAT(not_enrolled->source, HasSubstr("kernel/module/signing.c"));
  dkms.enrolled = std::nullopt;
  EXPECT_THAT(DkmsSignatureCause(true, dkms)->why, HasSubstr("may not be enrolled"));
  dkms.import_pending = true;
  EXPECT_THAT(DkmsSignatureCause(true, dkms)->fix, HasSubstr("Enroll MOK"));
  dkms.enrolled = true;
  EXPECT_FALSE(DkmsSignatureCause(true, dkms));  // its key is trusted: something else keeps amdgpu out
  dkms.enrolled = std::nullopt;
  dkms.certificate = std::nullopt;
  auto unsigned_module = DkmsSignatureCause(true, dkms);
  ASSERT_TRUE(unsigned_module);
  EXPECT_THAT(unsigned_module->why, HasSubstr("no signing key"));
  EXPECT_THAT(unsigned_module->fix, HasSubstr("dkms autoinstall"));
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
  EXPECT_THAT(found[0]->what, HasSubstr("(1002:73bf) has no driver and the amdgpu module is not loaded"));
  EXPECT_THAT(found[0]->fix.text, HasSubstr("modprobe amdgpu"));
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
  EXPECT_THAT(found[0]->what, HasSubstr("amdgpu is loaded but did not take it"));
  EXPECT_THAT(found[0]->fix.text, HasSubstr("dmesg"));
}

TEST(DriverBindingTest, NomodesetIsNamed) {
  TestTree t;
  AddNavi21(t, "");
  t.Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro nomodeset\n");
  const Inventory inv = DetectBinding(t);  // kept: NotAmdgpu points into it
  auto found = NotAmdgpu(inv);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_THAT(found[0]->what, HasSubstr("nomodeset"));
  // amdgpu.modeset=1 overrides it (amdgpu_pci_probe), and an accelerator is not a display GPU.
  t.Write("proc/cmdline", "ro nomodeset amdgpu.modeset=1\n");
  const Inventory overridden = DetectBinding(t);
  ASSERT_EQ(NotAmdgpu(overridden).size(), 1u);
  EXPECT_THAT(NotAmdgpu(overridden)[0]->what, Not(HasSubstr("nomodeset")));
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
  EXPECT_THAT(found[0]->what, HasSubstr("bound to vfio-pci (held for a virtual machine)"));
  EXPECT_EQ(found[1]->severity, Severity::kWarning);
  EXPECT_EQ(found[1]->gpu, "0000:04:00.0");
  EXPECT_THAT(found[1]->what, HasSubstr("driven by radeon"));
  EXPECT_THAT(found[1]->fix.text, HasSubstr("amdgpu.si_support=1 radeon.si_support=0"));
  EXPECT_THAT(found[1]->fix.text, HasSubstr("amdgpu.cik_support=1 radeon.cik_support=0"));
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

TEST(DriverBindingTest, SecureBootAndUnenrolledDkmsNameTheFix) {
  TestTree t;
  AddNavi21(t, "");
  AddPci(t, "0000:03:00.1", "0x1002", "0xab28", "0x040300", "");  // its audio: not a GPU
  SetSecureBoot(t);
  InstallAmdgpuDkms(t);
  t.Write("var/lib/dkms/mok.pub", kDer);
  t.Write(kMokListVar, BindingEfiVar("another vendor's key"));
  Inventory inv = DetectBinding(t);
  auto found = NotAmdgpu(inv);
  ASSERT_EQ(found.size(), 1u) << BindingMessages(inv);
  EXPECT_EQ(found[0]->severity, Severity::kError);
  EXPECT_THAT(found[0]->what, HasSubstr("Secure Boot is on and amdgpu-dkms is installed"));
  EXPECT_THAT(found[0]->what, HasSubstr("not enrolled"));
  EXPECT_THAT(found[0]->fix.text, HasSubstr("mokutil --import /var/lib/dkms/mok.pub"));
  EXPECT_THAT(found[0]->fix.text, Not(HasSubstr("seated")));
  EXPECT_THAT(found[0]->sources, ::testing::ElementsAre(HasSubstr("dkms")));
}

TEST(DriverBindingTest, WithoutSecureBootOrDkmsOrWithAmdgpuLoadedNoKeyIsBlamed) {
  auto blames_key = [](const TestTree& t) {
    const Inventory inv = DetectBinding(t);  // kept: NotAmdgpu points into it
    auto found = NotAmdgpu(inv);
    return found.size() == 1 && found[0]->fix.text.find("mokutil") != std::string::npos;
  };
  {
    TestTree t;  // Secure Boot off
    AddNavi21(t, "");
    SetSecureBoot(t, false);
    InstallAmdgpuDkms(t);
    EXPECT_FALSE(blames_key(t));
    SetSecureBoot(t, true);
    EXPECT_TRUE(blames_key(t));  // the same tree with it on: the control
  }
  {
    TestTree t;  // no amdgpu-dkms
    AddNavi21(t, "");
    SetSecureBoot(t);
    EXPECT_FALSE(blames_key(t));
  }
  {
    TestTree t;  // amdgpu loaded (so its module was accepted): something else keeps the GPU
    AddNavi21(t, "");
    SetSecureBoot(t);
    InstallAmdgpuDkms(t);
    t.Mkdir("sys/module/amdgpu/parameters");
    EXPECT_FALSE(blames_key(t));
  }
  {
    TestTree t;  // DKMS's key is enrolled
    AddNavi21(t, "");
    SetSecureBoot(t);
    InstallAmdgpuDkms(t);
    t.Write("var/lib/dkms/mok.pub", kDer);
    t.Write(kMokListVar, BindingEfiVar(std::string("list:") + std::string(kDer)));
    EXPECT_FALSE(blames_key(t));
  }
}

}  // namespace
}  // namespace rocmtune::detect
