// Redact: what a snapshot takes out of the text it copies, so a bug report carries no MAC
// address, host name, user name, network configuration or disk identifier of the
// kernel command line (snapshot/redact_cmdline.h). Serial numbers never get this far: the files that
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
  // Learns the host names to take out (etc/hostname, proc/sys/kernel/hostname of `root`) and the
  // user names: the human accounts of the root's own etc/passwd (uid 1000 and up, not nobody)
  // and the directories under home/.
  explicit Redactor(const sys::Root& root);
  explicit Redactor(const std::vector<std::string>& host_names, const std::vector<std::string>& user_names = {});

  // False for a file no snapshot copies whatever it holds: a network interface's hardware
  // address (sys/.../net/IF/address, *mac* attributes).
  static bool MayCopy(std::string_view rel);

  // `content` of the root-relative file `rel` with the private parts replaced: the host name
  // files hold "redacted"; MAC-looking values become 00:00:00:00:00:00 (any separator kept);
  // /home/NAME becomes /home/redacted; private kernel parameters keep their name and lose their
  // value (RedactKernelTokens); the host name and each user name, as whole words, become
  // "redacted" outside sysfs and os-release (a host named "debian" must not rename the
  // distribution). Names shorter than 3 characters and "localhost", and user names every install
  // of a distribution has (ubuntu, fedora, deck, rocm, ...: see redact.cc), are not taken out:
  // they name no one and would redact words of every file.
  std::string Redact(std::string_view rel, std::string_view content) const;

 private:
  std::vector<std::string> names_;  // host and user names, longest first: the FQDN before its short name
};

// The user names of a root (see Redactor): for tests.
std::vector<std::string> UserNames(const sys::Root& root);

// The pieces, for tests and for text that is not a file.
std::string RedactMacs(std::string_view content);
std::string RedactHomes(std::string_view content);
std::string RedactWord(std::string_view content, std::string_view word);

}  // namespace rocmtune::snapshot
