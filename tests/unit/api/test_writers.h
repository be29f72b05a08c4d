// The api::Writers the change tests use: the helper's own Executor run in this process (the real
// writes, journal and all), and a recorder that shows what reached the writer and when.
#pragma once

#include <string>
#include <vector>

#include "api/writer.h"
#include "helper/executor.h"
#include "helper/step_hook.h"

namespace rocmtune::testing {

class ExecutorWriter final : public api::Writer {
 public:
  explicit ExecutorWriter(const std::string& root) : root_(*sys::Root::Open(root)) {}
  Result<void> MayWrite(const sys::Root&) const override { return {}; }
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool force) override {
    ++applies;
    helper::Executor executor(root_, hooks_);
    return executor.Run(plan, {force, true});
  }
  Result<plan::HelperReply> Recover() override {
    ++recovers;
    helper::Executor executor(root_, hooks_);
    return executor.Recover({false, true});
  }
  int applies = 0, recovers = 0;

 private:
  sys::Root root_;
  helper::NoHooks hooks_;
};

// Records what reaches the writer and answers with a canned reply.
class RecordingWriter final : public api::Writer {
 public:
  Result<void> MayWrite(const sys::Root&) const override {
    if (!may_write) return Fail(ErrorCode::kNotAuthorized, "not allowed here");
    return {};
  }
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool) override {
    events.push_back("apply");
    plans.push_back(plan);
    return reply;
  }
  Result<plan::HelperReply> Recover() override {
    events.push_back("recover");
    return plan::HelperReply{plan::HelperStatus::kUnchanged, "", {}, plan::Regen::kNo, plan::Regen::kNo, {}};
  }
  bool may_write = true;
  plan::HelperReply reply{plan::HelperStatus::kCommitted, "7", {}, plan::Regen::kPending, plan::Regen::kNo, {}};
  std::vector<std::string> events;
  std::vector<plan::Plan> plans;
};

}  // namespace rocmtune::testing
