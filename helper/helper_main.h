// rocmtune-helper's command line, shared by the shipped binary (no hooks) and the crash-test
// build (a hook that kills or fails at step N).
#pragma once

#include "helper/step_hook.h"

namespace rocmtune::helper {

int HelperMain(int argc, char** argv, StepHook& hook);

}  // namespace rocmtune::helper
