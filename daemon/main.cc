// rocmtuned: rocmtune on the system bus (man/rocmtuned.8.scd, dbus/org.rocmtune1.Manager.xml).
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bus/power_profiles.h"
#include "daemon/service.h"
#include "sys/rocm_smi.h"

namespace {

int Run(int argc, char** argv) {
  rocmtune::daemon::ServiceOptions options;
  CLI::App app{"rocmtuned: rocmtune on the system bus (org.rocmtune1); started by D-Bus activation"};
  app.set_version_flag("--version", ROCMTUNE_VERSION);
  app.add_option("--root", options.root, "the tree to serve instead of / (tests, image builds)");
  app.add_option("--helper-socket", options.helper_socket, "where rocmtune-helper.socket listens");
  double idle_seconds = 30;
  app.add_option("--idle-timeout", idle_seconds, "exit after this many idle seconds (0: never)")
      ->check(CLI::Range(0.0, 86400.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int printed = app.exit(e);  // --help and --version print and exit 0; a usage error is 2, as rocmtunectl's
    return e.get_exit_code() == 0 ? printed : 2;
  }
  options.idle_usec = static_cast<uint64_t>(idle_seconds * 1e6);
  // The bus rocmtuned serves on is its tree's system bus: power-profiles-daemon is asked there
  // for any root (a world in tests), not only for "/" (bus/power_profiles.h).
  rocmtune::bus::RegisterPowerProfilesProbe(/*any_root=*/true);
  // Set by systemd/rocmtuned.service beside its TemporaryFileSystem=/dev/shm; never by rocmtunectl.
  const char* private_shm = std::getenv("ROCMTUNED_PRIVATE_SHM");
  options.shm_is_private = private_shm != nullptr && std::string_view(private_shm) == "1";
  return rocmtune::daemon::RunService(options);
}

}  // namespace

int main(int argc, char** argv) {
  // rocm-smi-lib's child, started again by the live-facts probe (sys::SmiOptions::reexec).
  if (auto status = rocmtune::sys::RunSmiProbeChild(argc, argv)) return *status;
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocmtuned: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "rocmtuned: an unknown error\n");
  }
  return 1;
}
