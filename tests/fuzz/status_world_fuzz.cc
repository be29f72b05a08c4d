// `status` on a world whose configuration files are the input: split (fuzz::kSeparator) into
// a modprobe.d file, /etc/environment, a profile.d script, /etc/default/grub, /proc/cmdline
// and rocmtune's record of the command-line tokens it owns, written into a copy of the
// rx6900xt world. api::Status reads them all: every knob's state and every finding on the
// settings already there (knobs/setting_findings.h), whoever wrote them. The one verdict holds
// for every input: doctor's findings are status's, check-compute's verdict
// is status's per GPU, and a GPU that is not safe has a problem finding doctor reports.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/check_compute.h"
#include "api/doctor.h"
#include "api/status.h"
#include "fuzz_support.h"
#include "plan/owned_paths.h"
#include "sys/root.h"
#include "util/json_text.h"

using namespace rocmtune;

namespace {

constexpr std::string_view kFiles[] = {
    "etc/modprobe.d/fuzz.conf", "etc/environment", "etc/profile.d/fuzz.sh",
    "etc/default/grub",         "proc/cmdline",    plan::kCmdlineTokensState,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("rx6900xt");
  static const sys::Root root = *sys::Root::Open(world.path());

  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), std::size(kFiles));
  for (size_t i = 0; i < std::size(kFiles); ++i) world.Write(kFiles[i], parts[i]);
  auto report = api::Status(root);
  if (!report) return 0;
  (void)JsonText(api::StatusJson(*report));
  auto doctor = api::Doctor(root);
  if (!doctor || doctor->findings.size() != report->findings.size()) std::abort();
  for (size_t i = 0; i < report->findings.size(); ++i)
    if (doctor->findings[i].id != report->findings[i].id ||
        doctor->findings[i].severity != report->findings[i].severity)
      std::abort();
  for (const char* workload : {"any", "conv", "gemm"}) {
    auto cc = api::CheckCompute(root, workload, "");
    if (!cc || cc->gpus.size() != report->inventory.gpus.size()) std::abort();
    for (size_t i = 0; i < cc->gpus.size(); ++i) {
      const api::ComputeGpu& g = cc->gpus[i];
      const api::ComputeGpu mine = api::ComputeGpuOf(*report, report->inventory.gpus[i], workload);
      if (g.safe() != mine.safe() || g.state != mine.state) std::abort();
      if (!g.safe() && !api::DoctorFoundProblems(*doctor)) std::abort();
    }
  }
  return 0;
}
