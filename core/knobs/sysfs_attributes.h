// The runtime attributes rocmtune manages, each with the codec that knows its format: how it
// reads, what it takes, how it is put back. The backend, the helper's allow-list, its undo and
// verify all go through a row of this table; nothing else knows an attribute by name.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::knobs {

class SysfsCodec {
 public:
  virtual ~SysfsCodec() = default;
  // The value as a person names it (what `set` takes and `status` shows), from the raw content.
  virtual std::optional<std::string> Current(std::string_view raw) const = 0;
  // What to write to put the attribute back as it reads now, in the form its store accepts;
  // nullopt when rocmtune could not put it back (and so must not change it).
  virtual std::optional<std::string> Restorable(std::string_view raw) const = 0;
  // The values the attribute takes on every device; empty when the device lists them.
  virtual std::span<const std::string_view> FixedValues() const { return {}; }
  // What to write for the value a person asked for, on a device whose attribute reads `raw`;
  // the error's message says why the device does not take it.
  virtual Result<std::string> Encode(std::string_view raw, std::string_view wanted) const = 0;
  // What to write to put back a value the attribute had before (named as Current() named it),
  // spelled as Restorable() would have spelled it: a word as `echo` writes it, with its newline.
  virtual Result<std::string> EncodeRestore(std::string_view raw, std::string_view wanted) const {
    return Encode(raw, wanted);
  }
  // The helper's rule for a value to write (one trailing newline already taken off). `raw` is the
  // attribute's content when ReadsDeviceToCheck(), else empty.
  virtual bool ReadsDeviceToCheck() const { return false; }
  virtual Result<void> CheckWrite(std::string_view raw, std::string_view written) const = 0;
  // Does an attribute reading `raw` hold `written`, a value in the form it was written?
  virtual bool Holds(std::string_view raw, std::string_view written) const = 0;
  // A world stands in for sysfs with a plain file: what it holds after the kernel took `written`.
  virtual std::string Emulate(std::string_view raw, std::string_view written) const = 0;
};

struct SysfsAttribute {
  std::string_view name;
  const SysfsCodec* codec;
  std::string_view description;
  std::string_view source;
};

std::span<const SysfsAttribute> SysfsAttributes();
const SysfsAttribute* FindSysfsAttribute(std::string_view name);
// The row for an attribute path (`<device dir>/<name>`), by its last component.
const SysfsAttribute* FindSysfsAttributeOfPath(std::string_view path);

}  // namespace rocmtune::knobs
