// pp_power_profile_mode: a table the kernel prints in a layout of each SMU generation's own,
// written with the index of one of its rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "knobs/sysfs_attributes.h"

namespace rocmtune::knobs {

struct PowerProfile {
  int index = 0;
  std::string name;
  bool active = false;
  // Where the row sits in the content (offsets), so a world's copy can be re-marked.
  size_t name_begin = 0, name_end = 0, mark = std::string_view::npos;
  bool row_of_many = false;  // several profiles on one line (smu_v13_0_7)
};

// Every layout the kernel prints: one profile a line, "  1 3D_FULL_SCREEN *:" (smu7, vega10),
// " 0 BOOTUP_DEFAULT*:" blocks (SMU11, SMU13, SMU14), " 5        COMPUTE *" (vangogh, no
// colon), and "0 BOOTUP_DEFAULT* 1 3D_FULL_SCREEN  ..." on one line (smu_v13_0_7). '*' marks
// the active one; NUL padding counts as blank.
std::vector<PowerProfile> ParsePowerProfiles(std::string_view content);

// The content after the kernel took `index`: the '*' moved to that row, in the table's own style.
// Content without that index is replaced by `index` (a plain file).
std::string MarkPowerProfile(std::string_view content, std::string_view index);

const SysfsCodec& PowerProfileCodec();

}  // namespace rocmtune::knobs
