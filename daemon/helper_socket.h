// The daemon's api::Writer: every write goes to rocmtune-helper through its socket
// (rocmtune-helper.socket, Accept=yes, root and group rocmtune, the daemon's user; one helper
// instance per connection). The
// request is a line ("apply", "apply --force", "recover", "read-boot"), then the plan JSON; the daemon shuts its
// side for writing and reads the helper's reply (plan::HelperReply) to the end. The daemon
// itself never writes. MayWrite asks `authorize` (polkit), so a change that turns out to
// change nothing never asks; it asks once per writer (one request): the core asks again before
// the plan when it first rolled back an interrupted transaction, and polkit must not ask a person
// twice for one change (nor answer the two questions differently).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "api/writer.h"
#include "sys/system_log.h"

namespace rocmtune::daemon {

class HelperSocketWriter final : public api::Writer {
 public:
  using Authorize = std::function<Result<void>()>;
  HelperSocketWriter(std::string socket_path, Authorize authorize)
      : socket_path_(std::move(socket_path)), authorize_(std::move(authorize)) {}

  Result<void> MayWrite(const sys::Root& root) const override;
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool force) override;
  Result<plan::HelperReply> Recover() override;
  // "read-boot": what the helper, as root, reads of the ESP's loader files (of the root it serves).
  Result<std::optional<sys::RootSupplement>> ReadBootFiles(const sys::Root& root) const override;
  Result<sys::RootSupplement> AskBootFiles() const;
  // "publish": the export files export.toml enables. Derived from the machine's state, not a
  // change anyone asked for: polkit is not asked (the helper checks the content itself).
  // "read-log": the GPU lines of the journal the helper, as root, reads (sys/system_log_json.h).
  Result<sys::LogRead> ReadLog(const sys::LogQuery& query) const;
  Result<plan::HelperReply> Publish(const std::vector<plan::PublishFile>& files) override;

 private:
  Result<std::string> Talk(const std::string& request) const;
  Result<plan::HelperReply> Exchange(const std::string& request) const;
  std::string socket_path_;
  Authorize authorize_;
  mutable std::optional<Result<void>> answer_;  // polkit's answer for this request, once asked
};

}  // namespace rocmtune::daemon
