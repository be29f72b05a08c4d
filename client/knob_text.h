// How a knob of a document (status's `knobs`, explain) reads in text, one way for every verb:
// WHERE as `/etc/default/grub:6` (the file as on the machine, a colon, the line) and the state
// the next boot brings.
#pragma once

#include <string>

#include "client/document.h"

namespace rocmtune::client {

// "/etc/default/grub:6", "/etc/environment" (no line known), "" when nothing configures it.
std::string KnobWhere(const Doc& knob);

// " (reboot pending)", " (gone after reboot)", " (ineffective)" or "".
std::string KnobNextBoot(const Doc& knob);

}  // namespace rocmtune::client
