// Exit codes: part of the CLI contract (DESIGN.md "Contracts"); scripts depend on them.
#pragma once

namespace rocmtune::client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRefused = 3;
inline constexpr int kExitNotAuthorized = 4;
inline constexpr int kExitDrift = 5;
inline constexpr int kExitVerifyDiffers = 6;

}  // namespace rocmtune::client
