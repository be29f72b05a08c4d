// What every verb gets: the global options, already validated, and the root opened once.
#pragma once

#include <memory>
#include <string>

#include "api/system.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::client {

struct Context {
  std::string root = "/";
  bool root_given = false;  // --root: always the local path (client/daemon_link.h)
  bool json = false;
  bool no_ask_password = false;

  // A handle on the root directory. The path is looked up once, on the first call; later calls
  // (and the helper the verb runs, through an inherited descriptor) get the same directory even
  // if someone points the path elsewhere meanwhile.
  Result<sys::Root> OpenRoot() const;
  // The root's inventory and journal (api::LoadSystem of OpenRoot()).
  Result<api::System> LoadSystem() const;
  // The same for a read verb: a journal this user may not read is unknown, not a failure
  // (api::LoadSystemForReading).
  Result<api::System> LoadSystemForReading() const;

 private:
  mutable std::shared_ptr<const sys::Root> opened_;
};

}  // namespace rocmtune::client
