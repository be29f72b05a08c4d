// Runs a program for a front end (the trial boot's admin check, journalctl, systemctl reboot):
// execv without a shell, stdin /dev/null, stdout captured, a deadline. The program runs as the
// leader of a process group of its own, and when it exits or its time is up that whole group is
// killed (SIGKILL) before the program is reaped: a check that leaves a background process, or
// hangs in a grandchild, leaves nothing running behind it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace rocmtune::sys {

struct CommandResult {
  bool ok = false;  // exited 0 within the deadline
  std::string out;  // stdout, at most the bytes asked for
  std::string why;  // when not ok: "PROGRAM exited with status 3", "... did not finish within 60 s (killed)"
};

// `argv.front()` is an absolute path. `max_output` bytes of stdout are kept (0: none).
CommandResult RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                         size_t max_output = 0);

}  // namespace rocmtune::sys
