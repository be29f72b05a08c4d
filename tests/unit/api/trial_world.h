// The world a trial test runs on (rx5700xt, grub-debian, one Navi10 bound to amdgpu) and the
// steps around a trial: its state seeded through the helper's Executor, its boot written into
// the world, its state read back. Shared by trial_test.cc and trial_cli_test.cc.
#pragma once

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "api/test_writers.h"
#include "api/trial.h"
#include "api/trial_internal.h"
#include "cli_runner.h"
#include "plan/owned_paths.h"
#include "plan/trial_state.h"

namespace rocmtune::trial_world {

using testing::ExecutorWriter;

inline constexpr const char* kWorld = "rx5700xt";  // grub-debian, one Navi10 bound to amdgpu at 0000:28:00.0
inline constexpr const char* kGpu = "0000:28:00.0";
inline constexpr const char* kId = "0badc0de";
inline constexpr const char* kTrialConf = "etc/modprobe.d/rocmtune.conf";

inline sys::Root OpenTrialWorld(const testing::WorldCopy& w) { return *sys::Root::Open(w.root()); }

inline plan::TrialState Prepared() {
  plan::TrialState s;
  s.id = kId;
  s.created = s.updated = "2026-11-27T00:00:00Z";
  s.request = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  s.tokens = {"amdgpu.noretry=0", "panic=10", plan::TrialToken(kId)};
  s.setup = "grub-debian";
  s.gpus_before = {{kGpu, "amdgpu"}};
  s.verdict_before = "unsafe";  // what this world says before the trial (no ROCm installed)
  return s;
}

// The state as a `--trial` prepare leaves it: written by the helper in a transaction of its own
// (a file of rocmtune's put there by hand would be drift).
inline void Seed(const testing::WorldCopy& w, ExecutorWriter& writer, const plan::TrialState& state) {
  plan::Plan p;
  p.intent = {"trial", "", {"prepare", state.id}, "", {}};
  p.root = OpenTrialWorld(w).id();
  p.ops.push_back({plan::OpKind::kWriteFile,
                   plan::BackendId::kCmdline,
                   std::string(plan::kTrialState),
                   std::nullopt,
                   plan::TrialStateText(state),
                   {},
                   "trial prepared"});
  auto reply = writer.Apply(p, false);
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_EQ(reply->status, plan::HelperStatus::kCommitted) << (reply->messages.empty() ? "" : reply->messages[0]);
}

// This boot as the trial entry booted it: the token on /proc/cmdline, the option in effect.
inline void BootTrial(const testing::WorldCopy& w, std::string_view noretry = "0") {
  std::string cmdline = w.Read("proc/cmdline");
  while (!cmdline.empty() && cmdline.back() == '\n') cmdline.pop_back();
  w.Write("proc/cmdline", cmdline + " amdgpu.noretry=0 panic=10 rocmtune.trial=" + kId + "\n");
  w.Write("sys/module/amdgpu/parameters/noretry", std::string(noretry) + "\n");
}

inline plan::TrialState State(const testing::WorldCopy& w) {
  auto state = api::ReadTrial(OpenTrialWorld(w));
  EXPECT_TRUE(state && *state);
  return state && *state ? **state : plan::TrialState{};
}

// check-compute's verdict on the world now: the baseline a prepare records.
inline std::string Verdict(const testing::WorldCopy& w) {
  sys::Root root = OpenTrialWorld(w);
  return api::ComputeVerdict(root, detect::Detect(root));
}

// A prepared trial (Prepared) with the compute verdict of this boot as its "before", seeded.
inline plan::TrialState SeedPrepared(const testing::WorldCopy& w, ExecutorWriter& writer) {
  plan::TrialState seeded = Prepared();
  seeded.verdict_before = Verdict(w);
  Seed(w, writer, seeded);
  return seeded;
}

// What a grub-debian machine has that a captured world lacks: grub-editenv (not run on a tree:
// the switch stays pending), the package's /etc/grub.d/42_rocmtune, and /boot/grub on ext4.
inline void MakeGrubTrialReady(const testing::WorldCopy& w) {
  w.Write("usr/bin/grub-editenv", "#!/bin/sh\nexit 0\n");
  std::ifstream script(std::string(ROCMTUNE_WORLDS_DIR) + "/../../grub/42_rocmtune");
  w.Write("etc/grub.d/42_rocmtune", std::string(std::istreambuf_iterator<char>(script), {}));
  w.Write("proc/self/mountinfo", "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n");
}

}  // namespace rocmtune::trial_world
