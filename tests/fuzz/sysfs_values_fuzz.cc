// Runtime attribute contents and the values written to them: the input is split
// (fuzz::kSeparator) into what an attribute reads (any device, any SMU generation's
// pp_power_profile_mode layout, NUL padding), a value a person asks for, and a value the helper
// is asked to write. Every codec of knobs/sysfs_attributes.h reads, encodes, checks and emulates
// them. Also the kernel command-line ownership record (boot/cmdline_owned.h) and the names
// plans and journals carry (plan/plan.h), which all come from files a person can edit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "boot/cmdline_owned.h"
#include "fuzz_support.h"
#include "knobs/power_profiles.h"
#include "knobs/sysfs_attributes.h"
#include "plan/plan.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), 3);
  const std::string_view raw = parts[0], wanted = parts[1], written = parts[2];

  for (const knobs::SysfsAttribute& attribute : knobs::SysfsAttributes()) {
    const knobs::SysfsCodec& codec = *attribute.codec;
    // The helper's check (helper/sysfs_rules.cc): one trailing newline off, then the codec's rule.
    auto accepts = [&](std::string_view value) {
      if (value.ends_with('\n')) value.remove_suffix(1);
      return codec.CheckWrite(codec.ReadsDeviceToCheck() ? raw : std::string_view(), value).has_value();
    };
    (void)codec.Current(raw);
    if (auto restorable = codec.Restorable(raw)) {
      // What rocmtune would write to put the attribute back must pass the helper's own rule.
      if (!accepts(*restorable)) std::abort();
    }
    if (auto encoded = codec.Encode(raw, wanted)) {
      // What `set` plans for a device must be what the helper accepts for it, and once the
      // kernel took it the attribute holds it.
      if (!accepts(*encoded)) std::abort();
      if (!codec.Holds(codec.Emulate(raw, *encoded), *encoded)) std::abort();
    }
    if (accepts(written)) (void)codec.Holds(codec.Emulate(raw, written), written);
  }
  for (const knobs::PowerProfile& profile : knobs::ParsePowerProfiles(raw)) {
    if (profile.name_begin > profile.name_end || profile.name_end > raw.size()) std::abort();
    (void)knobs::MarkPowerProfile(raw, std::to_string(profile.index));
  }
  (void)knobs::MarkPowerProfile(raw, wanted);

  // The ownership record reads back as written.
  auto tokens = boot::ParseTokensState(raw);
  if (boot::ParseTokensState(boot::TokensStateText(tokens)) != tokens) std::abort();

  (void)plan::ParseRegenerator(wanted);
  (void)plan::ParseBackendId(wanted);
  return 0;
}
