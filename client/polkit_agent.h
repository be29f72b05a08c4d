// A text polkit agent for the time of one change, as systemctl and busctl run one: when polkit
// wants a password for an admin in an active session, pkttyagent asks for it on this terminal.
#pragma once

#include <sys/types.h>

namespace rocmtune::client {

class PolkitAgent {
 public:
  // Starts `pkttyagent --notify-fd N --fallback` and waits until it has registered, only when
  // asking can work: stdin and stderr are terminals, the caller is not root (root is never
  // asked), and pkttyagent is installed. Otherwise does nothing.
  PolkitAgent();
  ~PolkitAgent();  // stops the agent
  PolkitAgent(const PolkitAgent&) = delete;
  PolkitAgent& operator=(const PolkitAgent&) = delete;

  bool running() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

}  // namespace rocmtune::client
