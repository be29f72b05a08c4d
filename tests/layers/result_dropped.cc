// A Result nobody looks at must not compile (util/result.h: Result is [[nodiscard]]). Built by
// layers.result_dropped.fails, which passes only when the compiler refuses the dropped Result
// (-Wunused-result); the control, which looks at it, must build.
#include "util/result.h"

namespace rocmtune {

Result<int> Answer();

#ifdef ROCMTUNE_PROBE_CONTROL
int Probe() {
  Result<int> answer = Answer();
  return answer ? *answer : 0;
}
#else
void Probe() { Answer(); }
#endif

}  // namespace rocmtune
