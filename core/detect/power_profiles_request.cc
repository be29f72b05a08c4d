#include "detect/power_profiles_request.h"

#include <optional>

namespace rocmtune::detect {
namespace {

struct RequestState {
  int depth = 0;
  std::optional<PowerProfilesBus> answer;
};

// Per thread: rocmtuned's workers (doctor, changes, live facts) run requests of their own.
RequestState& State() {
  thread_local RequestState state;
  return state;
}

}  // namespace

PowerProfilesRequest::PowerProfilesRequest() { ++State().depth; }

PowerProfilesRequest::~PowerProfilesRequest() {
  if (--State().depth == 0) State().answer.reset();
}

PowerProfilesBus AskOncePerRequest(const std::function<PowerProfilesBus()>& probe) {
  RequestState& state = State();
  if (state.depth == 0) return probe();
  if (!state.answer) state.answer = probe();
  return *state.answer;
}

}  // namespace rocmtune::detect
