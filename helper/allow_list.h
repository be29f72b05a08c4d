// PLACEHOLDER until the allow-list branch lands.
#pragma once
#include <string>
#include <vector>
#include "detect/inventory.h"
#include "plan/plan.h"
#include "sys/root.h"
#include "util/result.h"
namespace rocmtune::helper {
Result<void> CheckOp(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& op);
std::vector<Error> CheckPlan(const sys::Root& root, const detect::Inventory& inventory, const plan::Plan& plan);
}
