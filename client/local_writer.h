// The transport of changes without a daemon (and for --root, chroots, image builds):
// rocmtunectl runs rocmtune-helper itself, the plan on its stdin, its reply on its stdout.
#pragma once

#include <string>
#include <vector>

#include "api/writer.h"
#include "client/context.h"

namespace rocmtune::client {

class LocalWriter final : public api::Writer {
 public:
  explicit LocalWriter(const Context& ctx) : ctx_(ctx) {}
  // The running system only as root; any other tree as whoever may write it.
  Result<void> MayWrite(const sys::Root& root) const override;
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool force) override;
  Result<plan::HelperReply> Recover() override;
  Result<plan::HelperReply> Publish(const std::vector<plan::PublishFile>& files) override;

 private:
  Result<plan::HelperReply> Run(std::vector<std::string> args, const std::string& input);
  const Context& ctx_;
};

// The helper binary: $ROCMTUNE_HELPER (never for an installed rocmtunectl run as root, nor in a
// setuid or file-capability context), the build tree's when rocmtunectl runs from the build
// tree, else the installed one (libexec).
std::string HelperPath();

}  // namespace rocmtune::client
