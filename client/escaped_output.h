// Human output is not a terminal channel. What rocmtunectl prints for people quotes
// files (a grub comment, /etc/environment, modprobe.d, a profile's `why`, diffs of them), and a
// raw ESC there would retitle the terminal, clear it or forge lines. Rather than escaping at each
// of the many places that print, everything written to stdout and stderr passes one filter,
// text::EscapeControl (newlines and tabs kept): no print path can forget it.
#pragma once

#include <cstdio>

namespace rocmtune::client {

class EscapedOutput {
 public:
  // Filters stderr, and stdout too unless it carries --json (a JSON document escapes its own
  // strings, and "\xNN" inside one would make it invalid).
  explicit EscapedOutput(bool filter_stdout);
  ~EscapedOutput();  // flushes and puts the original streams back
  EscapedOutput(const EscapedOutput&) = delete;
  EscapedOutput& operator=(const EscapedOutput&) = delete;

 private:
  FILE* original_stdout_ = nullptr;
  FILE* original_stderr_ = nullptr;
};

}  // namespace rocmtune::client
