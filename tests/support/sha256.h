// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the content digests of the golden
// write lists, without linking a crypto library into the tests.
#pragma once

#include <string>
#include <string_view>

namespace rocmtune::testing {

std::string Sha256Hex(std::string_view data);

}  // namespace rocmtune::testing
