// Puts the export where its engines read it: renders each format /etc/rocmtune/export.toml
// enables (api/export.h) and hands the text to rocmtune-helper through the front end's writer
// (plan/publish.h, helper/publish.h). rocmtunectl export --write and rocmtuned (after a
// transaction, a GPU change, at its start) both call this.
#pragma once

#include <chrono>
#include <vector>

#include "api/export.h"
#include "api/writer.h"
#include "plan/helper_status.h"
#include "plan/publish.h"

namespace rocmtune::api {

// The files of the enabled formats, rendered from `report` at `now`.
std::vector<plan::PublishFile> PublishFiles(const ExportReport& report, const plan::ExportConfig& config,
                                            std::chrono::system_clock::time_point now);

// Fails when the writer cannot reach the helper; the helper's refusal or failure is the reply's.
Result<plan::HelperReply> PublishExports(const ExportReport& report, const plan::ExportConfig& config, Writer& writer);

}  // namespace rocmtune::api
