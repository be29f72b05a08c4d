// pp_power_profile_mode's codec on every real capture (tests/unit/knobs/sysfs_codec/): what it
// reads as, what puts it back, what the helper's rules let through, and a world's emulation of
// the kernel's store. The expectations were read off the captures by hand.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "allow_list_fixture.h"
#include "knobs/power_profiles.h"
#include "knobs/sysfs_attributes.h"

namespace rocmtune::helper {
namespace {

struct Capture {
  std::string file;
  std::optional<std::string> active;   // the name marked '*'
  std::optional<std::string> restore;  // the index the kernel takes to put it back
  std::map<int, std::string> listed;
};

const std::map<int, std::string> kSeven = {
    {0, "BOOTUP_DEFAULT"}, {1, "3D_FULL_SCREEN"}, {2, "POWER_SAVING"}, {3, "VIDEO"}, {4, "VR"},
    {5, "COMPUTE"},        {6, "CUSTOM"}};
std::map<int, std::string> WithWindow3d() {
  auto m = kSeven;
  m[7] = "WINDOW_3D";
  return m;
}

const std::vector<Capture>& Captures() {
  static const std::vector<Capture> kCaptures = {
      {"rx580", "3D_FULL_SCREEN", "1", kSeven},
      {"vega56", "BOOTUP_DEFAULT", "0", kSeven},
      {"rx5500xt", "COMPUTE", "5", kSeven},
      {"rx5700xt", "CUSTOM", std::nullopt, kSeven},  // CUSTOM's parameters cannot be written back
      {"rx6600", "3D_FULL_SCREEN", "1", kSeven},
      {"rx6600xt", "BOOTUP_DEFAULT", "0", kSeven},
      {"rx6900xt", "BOOTUP_DEFAULT", "0", kSeven},
      {"rx7600s", "VR", "4", WithWindow3d()},
      {"rx7700s", "BOOTUP_DEFAULT", "0", WithWindow3d()},
      {"rx7800xt", "COMPUTE", "5", WithWindow3d()},
      {"rx7900xtx", "BOOTUP_DEFAULT", "0", WithWindow3d()},
      {"rx9070", "3D_FULL_SCREEN", "1", WithWindow3d()},
      {"rx9070xt", "BOOTUP_DEFAULT", "0", WithWindow3d()},
      {"vangogh",
       std::nullopt,
       std::nullopt,  // none marked: BOOTUP_DEFAULT is not listed there
       {{1, "3D_FULL_SCREEN"}, {3, "VIDEO"}, {4, "VR"}, {5, "COMPUTE"}, {6, "CUSTOM"}, {8, "CAPPED"}, {9, "UNCAPPED"}}},
  };
  return kCaptures;
}

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string CaptureText(const Capture& c) {
  std::string text = Slurp(std::filesystem::path(ROCMTUNE_TESTDATA_DIR) / "knobs/sysfs_codec" / (c.file + ".txt"));
  EXPECT_FALSE(text.empty()) << c.file;
  return text;
}

const knobs::SysfsCodec& Codec() { return *knobs::FindSysfsAttribute("pp_power_profile_mode")->codec; }

TEST(SysfsCodecTest, EveryCaptureInTheDataFolderHasExpectations) {
  std::set<std::string> files, expected;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(ROCMTUNE_TESTDATA_DIR) / "knobs/sysfs_codec"))
    if (e.path().extension() == ".txt") files.insert(e.path().stem().string());
  for (const Capture& c : Captures()) expected.insert(c.file);
  EXPECT_EQ(files, expected);
}

TEST(SysfsCodecTest, ReadsTheListedProfilesAndTheActiveOne) {
  for (const Capture& c : Captures()) {
    SCOPED_TRACE(c.file);
    std::string raw = CaptureText(c);
    std::map<int, std::string> listed;
    for (const knobs::PowerProfile& p : knobs::ParsePowerProfiles(raw)) listed[p.index] = p.name;
    EXPECT_EQ(listed, c.listed);
    EXPECT_EQ(Codec().Current(raw), c.active);
    EXPECT_EQ(Codec().Restorable(raw), c.restore);
  }
}

TEST(SysfsCodecTest, EncodesListedNamesAndRefusesOthers) {
  for (const Capture& c : Captures()) {
    SCOPED_TRACE(c.file);
    std::string raw = CaptureText(c);
    for (const auto& [index, name] : c.listed) {
      auto encoded = Codec().Encode(raw, name);
      std::string want = name == "CUSTOM" ? "refused" : std::to_string(index);  // CUSTOM needs parameters
      EXPECT_EQ(encoded.value_or("refused"), want) << name;
    }
    for (std::string_view other : {"TURBO", "compute", "5", ""}) EXPECT_FALSE(Codec().Encode(raw, other)) << other;
  }
}

// The helper holds every write to the rules with the device's table in place: the restore value
// passes, as does every profile the device lists (but CUSTOM); other indices and names do not.
TEST_F(AllowListTest, TheHelperTakesWhatEachCaptureListsAndItsRestoreValue) {
  const std::string attr = Attr("pp_power_profile_mode");
  for (const Capture& c : Captures()) {
    SCOPED_TRACE(c.file);
    std::string raw = CaptureText(c);
    { std::ofstream(tree_.Path("root/" + attr), std::ios::binary | std::ios::trunc) << raw; }
    ASSERT_EQ(Disk(attr), raw);
    if (c.restore) {
      EXPECT_TRUE(Check(Sysfs(attr, *c.restore))) << "the restore value " << *c.restore;
    }
    for (int index = 0; index < 12; ++index) {
      bool allowed = c.listed.count(index) && c.listed.at(index) != "CUSTOM";
      EXPECT_EQ(static_cast<bool>(Check(Sysfs(attr, std::to_string(index)))), allowed) << index;
    }
    for (const auto& [index, name] : c.listed) EXPECT_FALSE(Check(Sysfs(attr, name))) << "a name, not an index";
    EXPECT_FALSE(Check(Sysfs(attr, raw))) << "never the table itself";
  }
}

// A world's plain file re-marked as the kernel would show it: a later read names the new
// profile, and writing the restore value back gives the capture byte for byte.
TEST(SysfsCodecTest, AWorldsWriteMovesTheMarkAndTheRestoreValueMovesItBack) {
  for (const Capture& c : Captures()) {
    SCOPED_TRACE(c.file);
    std::string raw = CaptureText(c);
    for (const auto& [index, name] : c.listed) {
      if (name == "CUSTOM") continue;
      std::string written = Codec().Emulate(raw, std::to_string(index));
      EXPECT_EQ(Codec().Current(written), name) << index;
      EXPECT_TRUE(Codec().Holds(written, std::to_string(index)));
      EXPECT_EQ(knobs::ParsePowerProfiles(written).size(), c.listed.size());
      if (c.restore) {
        EXPECT_EQ(Codec().Emulate(written, *c.restore), raw) << "back from " << name;
        EXPECT_EQ(Codec().Holds(written, *c.restore), *c.restore == std::to_string(index));
      }
    }
  }
}

// A copy with two rows marked (a hand edit; found by the sysfs_values fuzz target): after a
// write only the written row is marked, as the kernel would show it.
TEST(SysfsCodecTest, AWriteToACopyMarkedTwiceLeavesOnlyTheWrittenRowMarked) {
  for (const Capture& c : Captures()) {
    SCOPED_TRACE(c.file);
    std::string raw = CaptureText(c);
    auto profiles = knobs::ParsePowerProfiles(raw);
    auto active = std::find_if(profiles.begin(), profiles.end(), [](const auto& p) { return p.active; });
    if (active == profiles.end() || active->row_of_many) continue;
    auto other =
        std::find_if(profiles.begin(), profiles.end(), [](const auto& p) { return !p.active && p.name != "CUSTOM"; });
    ASSERT_NE(other, profiles.end());
    // Mark `other` too, in the marked row's own style.
    std::string twice = raw;
    twice.insert(other->name_end, raw.substr(active->name_end, active->mark + 1 - active->name_end));
    auto marked = knobs::ParsePowerProfiles(twice);
    ASSERT_EQ(std::count_if(marked.begin(), marked.end(), [](const auto& p) { return p.active; }), 2);
    for (int index : {active->index, other->index}) {
      std::string written = Codec().Emulate(twice, std::to_string(index));
      auto after = knobs::ParsePowerProfiles(written);
      EXPECT_EQ(std::count_if(after.begin(), after.end(), [](const auto& p) { return p.active; }), 1) << index;
      EXPECT_TRUE(Codec().Holds(written, std::to_string(index))) << index;
    }
  }
}

// Rows of many a line whose mark is all that parts a name from the next index (a hand edit; the
// sysfs_values fuzz target found it): moving the mark keeps the rows apart.
TEST(SysfsCodecTest, MovingAMarkThatPartedTwoRowsKeepsThemApart) {
  const std::string raw = " 3  VIDEO \n 4  VR  *5  COMPUTE \n 8  CAPPED \n";
  ASSERT_EQ(Codec().Current(raw), "VR");
  auto index = Codec().Encode(raw, "COMPUTE");
  ASSERT_TRUE(index) << index.error().message;
  EXPECT_EQ(*index, "5");
  std::string written = Codec().Emulate(raw, *index);
  EXPECT_EQ(Codec().Current(written), "COMPUTE") << written;
  EXPECT_TRUE(Codec().Holds(written, "5")) << written;
  EXPECT_EQ(knobs::ParsePowerProfiles(written).size(), 4u) << written;
}

TEST(SysfsCodecTest, AWordAttributeReadsItsWordAndRestoresWhatItRead) {
  const knobs::SysfsCodec& level = *knobs::FindSysfsAttribute("power_dpm_force_performance_level")->codec;
  EXPECT_EQ(level.Current("auto\n"), "auto");
  EXPECT_EQ(level.Restorable("auto\n"), "auto\n");
  EXPECT_EQ(level.Restorable("unknown\n"), std::nullopt) << "not a value the store takes";
  // A read with a stray carriage return and NUL padding (found by the sysfs_values fuzz target)
  // restores the word, which the helper's rule takes; the raw bytes it would refuse.
  std::string odd("auto\n\r\0\0\0", 9);
  ASSERT_EQ(level.Restorable(odd), "auto");
  EXPECT_EQ(level.Restorable("high"), "high") << "a world file rocmtune wrote gets back exactly what it held";
  EXPECT_TRUE(level.CheckWrite(odd, "auto"));
  EXPECT_TRUE(level.Holds("high\n", "high"));
  EXPECT_FALSE(level.Holds("auto\n", "high"));
  EXPECT_EQ(level.Emulate("auto\n", "high"), "high");
  EXPECT_FALSE(level.Encode("", "turbo"));
}

}  // namespace
}  // namespace rocmtune::helper
