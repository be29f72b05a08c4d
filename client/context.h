// What every verb gets: the global options, already validated.
#pragma once

#include <string>

namespace rocmtune::client {

struct Context {
  std::string root = "/";
  bool json = false;
  bool no_ask_password = false;
};

}  // namespace rocmtune::client
