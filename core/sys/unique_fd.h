// A file descriptor's owner: util/handle.h's Handle over close(2).
#pragma once

#include <unistd.h>

#include "util/handle.h"

namespace rocmtune::sys {

using UniqueFd = Handle<int, ::close, -1>;

}  // namespace rocmtune::sys
