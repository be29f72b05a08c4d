// `reapply`: write the runtime attributes rocmtune keeps set (knobs::DesiredRuntime) back onto
// the devices that no longer hold them — after a reboot, a GPU reset, a hotplug or a resume the
// kernel has its defaults there again. Run by rocmtune-apply@.service (udev) and by hand.
#pragma once

#include <string>
#include <string_view>

#include "api/change.h"

namespace rocmtune::api {

// `card`: "cardN", a PCI address, or empty for every device. Only attributes that read
// otherwise than rocmtune's value are written, through their codecs, as one journaled
// transaction (intent "reapply"); when every one is in place nothing is written or recorded,
// so running it again is a no-op. It never changes what rocmtune keeps set. A card that is not
// here, or has nothing kept, is not an error: the report says so (udev may start it for a card
// that is gone again). A setting that cannot be planned (its attribute unreadable, its value no
// longer taken) is left out, the rest is written, and the report fails naming it.
// What rocmtuned's Reapply takes as its card argument before it asks polkit: "" (every GPU), or
// at most kMaxReapplyCard letters, digits, ':' and '.' (cardN, a PCI address): nothing that could
// read as an option, a path or a second line of the polkit details. Fuzzed: reapply_card.
inline constexpr size_t kMaxReapplyCard = 64;
bool IsReapplyCard(std::string_view card);

Result<ChangeReport> Reapply(const sys::Root& root, const std::string& card, const ChangeOptions& options,
                             Writer& writer);

}  // namespace rocmtune::api
