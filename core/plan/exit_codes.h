// The exit codes of rocmtunectl and rocmtune-helper: part of the CLI contract (rocmtunectl(1),
// EXIT STATUS); scripts depend on them, locally and over the bus alike. The bus contract
// (bus/contract.h) is where the front ends take them from; they are declared here, in plan (the
// helper's contract with its callers: the plan it reads, the reply it writes), because the helper
// may not link bus/ (it links api, which the helper must not reach: tests/layers), and plan is the
// lowest layer both the helper and the front ends link.
#pragma once

namespace rocmtune::plan {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // check-compute: not safe, or no usable GPU
inline constexpr int kExitUsage = 2;   // check-compute: also an unknown workload or device
inline constexpr int kExitRefused = 3;
inline constexpr int kExitNotAuthorized = 4;
inline constexpr int kExitDrift = 5;
inline constexpr int kExitVerifyDiffers = 6;

}  // namespace rocmtune::plan
