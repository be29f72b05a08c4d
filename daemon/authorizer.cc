#include "daemon/authorizer.h"

#include <fmt/format.h>

#include "bus/contract.h"
#include "daemon/guard.h"
#include "daemon/log.h"

namespace rocmtune::daemon {
namespace {

uint64_t Usec(std::chrono::seconds s) { return static_cast<uint64_t>(s.count()) * 1000 * 1000; }

}  // namespace

Result<void> Authorizer::Ask(const Caller& caller, const std::string& action,
                             const std::map<std::string, std::string>& details, Done done) {
  if (bus_ == nullptr) return Fail(ErrorCode::kIo, "asking polkit: no bus");
  if (pending_.contains(caller.uid))
    return Fail(ErrorCode::kNotAuthorized,
                fmt::format("an authorization for uid {} is already waiting for an answer; answer it (or cancel it) "
                            "and ask again",
                            caller.uid));
  auto question = std::make_unique<Question>();
  question->owner = this;
  question->caller = caller;
  question->action = action;
  question->cancellation_id = fmt::format("rocmtune-{}", ++next_id_);
  question->done = std::move(done);
  auto call = NewCheckAuthorization(bus_, caller, action, details, question->cancellation_id);
  if (!call) return tl::unexpected(call.error());

  // The caller's connection going away ends the question (and polkit's agent dialog with it).
  // A unique name is ":N.M" (the bus checked it), so it is safe inside the match rule.
  const std::string rule =
      fmt::format("type='signal',sender='{}',path='{}',interface='{}',member='NameOwnerChanged',arg0='{}'",
                  bus::kBusDaemon.name, bus::kBusDaemon.path, bus::kBusDaemon.interface, caller.sender);
  sd_bus_slot* watch = nullptr;
  if (int r = sd_bus_add_match_async(bus_, &watch, rule.c_str(), OnNameOwnerChanged, nullptr, question.get()); r < 0)
    return Fail(ErrorCode::kIo, "asking polkit: cannot watch the caller's connection", -r);
  question->watch.Reset(watch);

  sd_bus_slot* slot = nullptr;
  const uint64_t timeout = Usec(caller.interactive ? kInteractiveTimeout : kTimeout);
  if (int r = sd_bus_call_async(bus_, &slot, call->get(), OnAnswer, question.get(), timeout); r < 0)
    return Fail(ErrorCode::kIo, "asking polkit: cannot send the question", -r);
  question->call.Reset(slot);
  pending_.emplace(caller.uid, std::move(question));
  return {};
}

std::unique_ptr<Authorizer::Question> Authorizer::Take(uid_t uid) {
  auto it = pending_.find(uid);
  if (it == pending_.end()) return nullptr;
  std::unique_ptr<Question> question = std::move(it->second);
  pending_.erase(it);
  return question;
}

void Authorizer::Cancel(const std::string& cancellation_id) {
  // Fire and forget: polkit ends the agent's dialog; its reply (or an error) changes nothing here.
  (void)sd_bus_call_method_async(bus_, nullptr, bus::kPolkitAuthority.name, bus::kPolkitAuthority.path,
                                 bus::kPolkitAuthority.interface, "CancelCheckAuthorization", nullptr, nullptr, "s",
                                 cancellation_id.c_str());
}

int Authorizer::OnAnswer(sd_bus_message* reply, void* userdata, sd_bus_error*) noexcept {
  return Guard("polkit's answer", [&] {
    auto* question = static_cast<Question*>(userdata);
    Authorizer& self = *question->owner;
    std::unique_ptr<Question> held = self.Take(question->caller.uid);
    if (!held) return 0;
    auto answer = ReadAuthorization(reply, held->caller, held->action);
    // No answer in time (the agent never answered): polkit stops asking too.
    if (!answer) self.Cancel(held->cancellation_id);
    // The caller's reply, and its log line, come from `done` (change_methods.cc).
    if (held->done) held->done(std::move(answer));
    return 0;
  });
}

int Authorizer::OnNameOwnerChanged(sd_bus_message* signal, void* userdata, sd_bus_error*) noexcept {
  return Guard("a caller leaving the bus", [&] {
    auto* question = static_cast<Question*>(userdata);
    const char* name = nullptr;
    const char* old_owner = nullptr;
    const char* new_owner = nullptr;
    if (sd_bus_message_read(signal, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    if (new_owner != nullptr && new_owner[0] != '\0') return 0;
    Authorizer& self = *question->owner;
    std::unique_ptr<Question> held = self.Take(question->caller.uid);
    if (!held) return 0;
    LogDropped(fmt::format("the authorization of {} for uid {}", held->action, held->caller.uid),
               fmt::format("the caller {} left the bus before polkit answered", held->caller.sender));
    self.Cancel(held->cancellation_id);  // nobody is left to answer
    return 0;
  });
}

}  // namespace rocmtune::daemon
