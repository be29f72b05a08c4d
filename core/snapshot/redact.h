// Redact: what a snapshot takes out of the text it copies, so a bug report carries no MAC
// address, host name or user name (issue 15). Serial numbers never get this far: the files that
// hold them are not copied, and KFD unique_id values are hashed (snapshot.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"

namespace rocmtune::snapshot {

inline constexpr std::string_view kRedacted = "redacted";

class Redactor {
 public:
  // Learns the host names to take out (etc/hostname, proc/sys/kernel/hostname of `root`).
  explicit Redactor(const sys::Root& root);
  explicit Redactor(std::vector<std::string> host_names);

  // False for a file no snapshot copies whatever it holds: a network interface's hardware
  // address (sys/.../net/IF/address, *mac* attributes).
  static bool MayCopy(std::string_view rel);

  // `content` of the root-relative file `rel` with the private parts replaced: the host name
  // files hold "redacted"; MAC-looking values become 00:00:00:00:00:00 (any separator kept);
  // /home/NAME becomes /home/redacted; the host name, as a whole word, becomes "redacted" outside
  // sysfs and os-release (a host named "debian" must not rename the distribution).
  std::string Redact(std::string_view rel, std::string_view content) const;

 private:
  std::vector<std::string> host_names_;  // longest first: the FQDN before its short name
};

// The pieces, for tests and for text that is not a file.
std::string RedactMacs(std::string_view content);
std::string RedactHomes(std::string_view content);
std::string RedactWord(std::string_view content, std::string_view word);

}  // namespace rocmtune::snapshot
