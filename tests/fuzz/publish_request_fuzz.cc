// What rocmtune-helper's `publish` reads from its stdin or socket (plan/publish.h): the request
// parses strictly and prints back the same; content the helper's rules accept is text of the
// export's shape only — every Prometheus line a HELP/TYPE line or a rocmtune_ sample, every NFD line
// a comment or a label of the namespace — without a control byte, within the limits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "plan/publish.h"

using namespace rocmtune;

namespace {

bool Shaped(const plan::PublishFile& f) {
  bool nfd = f.format == plan::ExportFormat::kNfd;
  if (f.content.size() > (nfd ? 64 * 1024 : 1 << 20)) return false;
  std::string_view text = f.content;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    if (eol == std::string_view::npos) return false;
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
    bool ok = nfd ? (line.starts_with("#") || line.starts_with("rocmtune.org/"))
                  : (line.starts_with("# HELP rocmtune_") || line.starts_with("# TYPE rocmtune_") ||
                     line.starts_with("rocmtune_"));
    if (!ok) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto files = plan::ParsePublishRequest(fuzz::AsText(data, size));
  if (!files) return 0;
  auto again = plan::ParsePublishRequest(plan::PublishRequestJson(*files).dump());
  if (!again || again->size() != files->size()) __builtin_trap();
  plan::ExportConfig config;
  for (plan::PublishTarget& t : config.targets) t.enabled = true;
  for (size_t i = 0; i < files->size(); ++i) {
    const plan::PublishFile& f = (*files)[i];
    if ((*again)[i].format != f.format || (*again)[i].content != f.content) __builtin_trap();
    if (plan::CheckPublishContent(config, f) && !Shaped(f)) __builtin_trap();
  }
  return 0;
}
