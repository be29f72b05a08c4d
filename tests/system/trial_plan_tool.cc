// rocmtune_trial_plan ROOT [--cleanup] ID TOKEN...: the trial boot plan (or its cleanup) the boot
// setup of ROOT makes (boot::Setup::PlanTrial / PlanTrialCleanup), as plan JSON
// (plan/plan_json.h), and the helper's allow-list verdict on each op: what
// trial_grub_chroot_test.sh carries out with the real tools. Exit 0 with the JSON, 1 on errors.
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "boot/setup.h"
#include "detect/inventory.h"
#include "helper/allow_list.h"
#include "knowledge/catalog.h"
#include "plan/plan_json.h"

int main(int argc, char** argv) {
  using namespace rocmtune;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) {
    std::cerr << "usage: rocmtune_trial_plan ROOT [--cleanup] | ROOT ID TOKEN...\n";
    return 1;
  }
  auto root = sys::Root::Open(args[0]);
  if (!root) {
    std::cerr << root.error().message << "\n";
    return 1;
  }
  detect::Inventory inventory = detect::Detect(*root);
  boot::BootContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
  const boot::Setup* setup = boot::SetupFor(inventory.system.boot.kind);
  if (!setup) {
    std::cerr << "the boot setup is unknown\n";
    return 1;
  }
  plan::Plan plan;
  // The intent api/trial.cc gives these steps (the helper checks it too).
  if (args[1] == "--cleanup") {
    plan.intent = {"trial", "", {"cancel"}, "", {}};
    setup->PlanTrialCleanup(ctx, plan);
  } else {
    plan.intent = {"trial", "", {"prepare"}, "", {}};
    boot::TrialBoot trial{args[1], std::vector<std::string>(args.begin() + 2, args.end())};
    setup->PlanTrial(ctx, trial, plan);
  }
  nlohmann::ordered_json out = plan::PlanToJson(plan);
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
  for (const Error& e : helper::CheckPlan(*root, inventory, plan)) verdicts.push_back(e.message);
  out["helper_refusals"] = verdicts;
  std::cout << out.dump(2) << "\n";
  return 0;
}
