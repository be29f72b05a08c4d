#include "daemon/callers.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "bus/contract.h"
#include "daemon/guard.h"

namespace rocmtune::daemon {
namespace {

Callers* g_attached = nullptr;  // the loop's thread only
constexpr uint64_t kLookupTimeoutUsec = 120ULL * 1000 * 1000;

// GetConnectionCredentials' a{sv}: UnixUserID (u) and ProcessID (u); other keys are skipped.
Result<CallerCreds> ReadCreds(sd_bus_message* reply) {
  auto bad = [](int r) {
    return Fail(ErrorCode::kNotAuthorized, fmt::format("cannot tell who is calling: {}", std::strerror(-r)), -r);
  };
  if (const sd_bus_error* e = sd_bus_message_get_error(reply); e != nullptr)
    return Fail(ErrorCode::kNotAuthorized,
                fmt::format("cannot tell who is calling: {}", e->message ? e->message : e->name),
                sd_bus_error_get_errno(e));
  CallerCreds creds;
  bool have_uid = false;
  if (int r = sd_bus_message_enter_container(reply, 'a', "{sv}"); r < 0) return bad(r);
  for (;;) {
    int r = sd_bus_message_enter_container(reply, 'e', "sv");
    if (r < 0) return bad(r);
    if (r == 0) break;
    const char* key = nullptr;
    if (r = sd_bus_message_read(reply, "s", &key); r < 0) return bad(r);
    const std::string_view name = key ? key : "";
    if (name == "UnixUserID" || name == "ProcessID") {
      uint32_t value = 0;
      if (r = sd_bus_message_read(reply, "v", "u", &value); r < 0) return bad(r);
      if (name == "UnixUserID") {
        creds.uid = static_cast<uid_t>(value);
        have_uid = true;
      } else {
        creds.pid = static_cast<pid_t>(value);
      }
    } else if (r = sd_bus_message_skip(reply, "v"); r < 0) {
      return bad(r);
    }
    if (r = sd_bus_message_exit_container(reply); r < 0) return bad(r);
  }
  if (!have_uid) return Fail(ErrorCode::kNotAuthorized, "cannot tell who is calling: the bus did not name a uid");
  return creds;
}

}  // namespace

Callers::~Callers() {
  if (g_attached == this) g_attached = nullptr;
}

void Callers::Attach(sd_bus* bus) {
  bus_ = bus;
  g_attached = this;
}

std::optional<CallerCreds> Callers::Known(std::string_view sender) const {
  auto it = known_.find(sender);
  if (it == known_.end()) return std::nullopt;
  return it->second;
}

Result<void> Callers::Resolve(const std::string& sender, Done done) {
  if (auto known = Known(sender)) {
    done(*known);
    return {};
  }
  if (sender.empty()) {
    done(Fail(ErrorCode::kNotAuthorized, "cannot tell who is calling: the message has no sender"));
    return {};
  }
  if (waiting_ >= kMaxWaiting)
    return Fail(ErrorCode::kBusy, fmt::format("{} requests wait to learn who sent them; ask again", waiting_));
  if (auto it = lookups_.find(sender); it != lookups_.end()) {
    it->second->waiting.push_back(std::move(done));
    ++waiting_;
    return {};
  }
  auto lookup = std::make_unique<Lookup>();
  lookup->owner = this;
  lookup->sender = sender;
  sd_bus_message* call_raw = nullptr;
  int r = sd_bus_message_new_method_call(bus_, &call_raw, bus::kBusDaemon.name, bus::kBusDaemon.path,
                                         bus::kBusDaemon.interface, "GetConnectionCredentials");
  bus::MessagePtr call(call_raw);
  if (r >= 0) r = sd_bus_message_append(call.get(), "s", sender.c_str());
  sd_bus_slot* slot = nullptr;
  // The answer queues behind whatever the bus holds for us: under a flood of large messages that
  // is longer than sd-bus's 25 s default, and the caller (root's change) is still there.
  if (r >= 0) r = sd_bus_call_async(bus_, &slot, call.get(), OnReply, lookup.get(), kLookupTimeoutUsec);
  if (r < 0) return Fail(ErrorCode::kIo, fmt::format("cannot ask the bus who is calling: {}", std::strerror(-r)), -r);
  lookup->call.Reset(slot);
  lookup->waiting.push_back(std::move(done));
  ++waiting_;
  lookups_.emplace(sender, std::move(lookup));
  return {};
}

int Callers::OnReply(sd_bus_message* reply, void* userdata, sd_bus_error*) noexcept {
  return Guard("the caller's credentials", [&] {
    auto& lookup = *static_cast<Lookup*>(userdata);
    return lookup.owner->Answered(lookup, reply);
  });
}

int Callers::Answered(Lookup& lookup, sd_bus_message* reply) {
  auto it = lookups_.find(lookup.sender);
  if (it == lookups_.end()) return 0;
  std::unique_ptr<Lookup> held = std::move(it->second);  // ends with this call (and its slot)
  lookups_.erase(it);
  waiting_ -= held->waiting.size();
  Result<CallerCreds> creds = ReadCreds(reply);
  if (creds) Remember(held->sender, *creds);
  for (Done& done : held->waiting)  // each guarded: one that throws does not leave the others unanswered
    (void)Guard("a request waiting for its caller's credentials", [&] {
      done(creds);
      return 0;
    });
  return 0;
}

void Callers::Remember(const std::string& sender, const CallerCreds& creds) {
  if (known_.size() >= kMaxKnown && !order_.empty()) {
    known_.erase(order_.front());
    order_.pop_front();
  }
  if (known_.emplace(sender, creds).second) order_.push_back(sender);
}

std::optional<CallerCreds> KnownCaller(std::string_view sender) {
  if (g_attached == nullptr) return std::nullopt;
  return g_attached->Known(sender);
}

Result<void> ResolveCaller(const std::string& sender, Callers::Done done) {
  if (g_attached == nullptr) return Fail(ErrorCode::kIo, "no bus to ask who is calling");
  return g_attached->Resolve(sender, std::move(done));
}

}  // namespace rocmtune::daemon
