// Loads a table compiled into the library. The data is the build's own and a unit test
// parses it, so a failure here is a broken build: say so and stop.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

namespace rocmtune::knowledge {

// `args`: what T::Parse needs besides the text (another built-in table it checks names against).
template <typename T, typename... Args>
T LoadBuiltin(std::string_view content, std::string_view origin, const Args&... args) {
  auto parsed = T::Parse(content, origin, args...);
  if (!parsed) {
    fmt::print(stderr, "rocmtune: built-in data is broken: {}\n", parsed.error().message);
    std::abort();
  }
  return std::move(*parsed);
}

}  // namespace rocmtune::knowledge
