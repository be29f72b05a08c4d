// The assessment's findings (diagnose/assess.h) are detect::Finding (detect/finding.h), the one
// type every layer makes and renders; the assessment classifies detection's and the knobs'
// findings (kind, effect) and adds its own. `status`, `doctor`, `check-compute` and rocmtuned render
// these; nothing above this layer decides again whether something is wrong.
#pragma once

#include <string>
#include <vector>

#include "detect/finding.h"
#include "detect/finding_ids.h"

namespace rocmtune::diagnose {

using detect::Effect;
using detect::EffectName;
using detect::Finding;
using detect::FindingId;
using detect::FindingName;
using detect::Fix;
using detect::Kind;
using detect::KindName;
using detect::Place;
using detect::Severity;

// One finding per fact: findings with the same id, GPU, subject, severity and words, which
// differ only in where the setting is written (a boot loader's file and /proc/cmdline), become
// the first of them with every place in `places`; the fix of a file that can be edited wins over
// /proc/cmdline's. Order is kept. Every finding with a file gets its places.
void MergeSameFacts(std::vector<Finding>& findings);

// A finding of one of the checks (machine_checks, live_checks, support_checks).
Finding MakeFinding(std::string id, Severity severity, std::string subject, std::string what, std::string why,
                    std::string fix = "", std::vector<std::string> sources = {});

}  // namespace rocmtune::diagnose
