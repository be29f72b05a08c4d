// Running rocmtune-helper (the real or the fault build) as a child process, and reading the
// fault build's step log.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace rocmtune::crash {

struct RunOptions {
  std::vector<std::pair<std::string, std::string>> env;  // added to a copy without ROCMTUNE_FAULT*
  std::optional<uid_t> uid;                              // drop to this uid (and gid) first
};

// Options with one environment variable set.
inline RunOptions WithEnv(std::string key, std::string value) {
  return {{{std::move(key), std::move(value)}}, std::nullopt};
}

struct RunResult {
  bool killed_by_sigkill = false;
  int signal = 0;      // the signal that ended it, 0 when it exited
  int exit_code = -1;  // when it exited
  std::string output;  // stdout and stderr
  nlohmann::json doc;  // the JSON result on stdout; discarded when there is none

  std::string status() const;
  std::string messages() const;  // all messages, one per line
};

RunResult RunHelper(const std::string& binary, const std::vector<std::string>& args, const std::string& input,
                    const RunOptions& options = {});

// One line of ROCMTUNE_FAULT_LOG.
struct LoggedStep {
  size_t number = 0;
  std::string name;
  std::string path;
};
std::vector<LoggedStep> ReadStepLog(const std::string& file);

}  // namespace rocmtune::crash
