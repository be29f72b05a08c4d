// Every finding id rocmtune reports (status, doctor, check-compute, rocmtuned), in one table: its
// name in JSON and text, its severity and one line of text. Producers name an id by FindingId
// (FindingName gives its JSON text); rocmtunectl(1) FINDINGS lists exactly these ids (test
// FindingTable.ManPageListsEveryId). Known issues add `issue.<id>` findings from
// data/known_issues.toml; they are not in this table.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "detect/finding.h"

namespace rocmtune::detect {

enum class FindingId {
  kDetectReadError,
  kDetectIdMismatch,
  kDetectKfdNoDomain,
  kDetectParametersUnreadable,
  kGpuNotAmdgpu,
  kGpuNoRocmIsa,
  kGpuGfxTargetUnknown,
  kGpuNotRocmFamily,
  kGpuNoKfd,
  kGpuNone,
  kFileUnreadable,
  kModuleUnknownParameter,
  kModuleInvalidValue,
  kModuleNotInKernel,
  kModuleWrongModule,
  kModuleNoEffect,
  kModuleDeprecated,
  kModuleSizeAboveRam,
  kModuleSizeBelowDefault,
  kModuleLockupTimeoutShort,
  kModuleGttTtmDisagree,
  kCmdlineInvalidValue,
  kEnvNotRead,
  kEnvInvalidValue,
  kEnvOverrideOtherIsa,
  kEnvDebugSwitch,
  kJournalInterrupted,
  kJournalPendingRegeneration,
  kJournalLeftoverTemporary,
  kJournalUnreadable,
  kJournalNotPermitted,
  kTrialPending,
  kTrialFailed,
  kWriterPowerProfilesDaemon,
  kWriterTuned,
  kWriterGameMode,
  kWriterLact,
  kWriterCoreCtrl,
  kPcieNoAtomics,
  kPcieSmallBar,
  kIommuTranslated,
  kAccessKfd,
  kAccessUnknown,
  kRebootPending,
  kComputeHideGpus,
  kComputeService,
  kRocmGpuSupported,
  kRocmGpuDeprecated,
  kRocmGpuNotSupported,
  kRocmNotInstalled,
  kRocmSupportUnknown,
  kRuntimeCode,
  kRuntimeNoCode,
  kRuntimeUnknown,
  kRuntimeOverrideRedundant,
  kLiveEccUncorrectable,
  kLiveEccCorrectable,
  kLivePcieBelowMax,
  kLivePcieReplays,
  kLiveThrottling,
  kLiveUnknown,
  kLiveStaleSmiMutex,
  kLogMissingCodeObject,
  kLogOtherGpu,
  kLogUnexplainedCrash,
  kFaultThisBoot,
};

struct FindingRow {
  FindingId id;
  std::string_view name;  // "detect.read-error": the JSON `id`
  Severity severity;      // the severity it has, or the least when it depends (see most)
  Severity most;          // the highest severity it can have
  std::string_view text;  // one line: what it means
};

std::span<const FindingRow> FindingTable();
const FindingRow& RowOf(FindingId id);
// The one conversion each way between an id and its name.
std::string FindingName(FindingId id);
std::optional<FindingId> ParseFindingId(std::string_view name);

}  // namespace rocmtune::detect
