// Refusal tables break one thing of a valid document at a time: the document with the first
// `from` replaced by `to`. A `from` that is not in it fails the test (the row would test nothing).
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace rocmtune::testing {

inline std::string Edited(std::string_view valid, std::string_view from, std::string_view to) {
  std::string text(valid);
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' is not in the document";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace rocmtune::testing
