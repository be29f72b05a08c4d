#include "client/document.h"

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bus/contract.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "util/byte_size.h"
#include "util/json_text.h"

namespace rocmtune::client {

std::string Field(const Doc& doc, std::string_view key, std::string_view unknown) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::string(unknown);
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

std::string SizedField(const Doc& doc, std::string_view key, std::string_view unknown) {
  std::string text = Field(doc, key, unknown);
  auto bytes = doc.find(std::string(key) + "_bytes");
  if (bytes != doc.end() && bytes->is_number_unsigned())
    text += fmt::format(" ({})", util::FormatBytes(bytes->get<uint64_t>()));
  return text;
}

std::string PlacesText(const Doc& finding) {
  auto at = [](const Doc& place) {
    std::string file = Field(place, "file", "");
    if (file.empty()) return file;
    std::string line = Field(place, "line", "");
    return "/" + file + (line.empty() || line == "-" ? "" : ":" + line);
  };
  std::string out;
  if (finding.contains("places") && finding["places"].is_array())
    for (const Doc& place : finding["places"])
      if (std::string one = at(place); !one.empty()) out += (out.empty() ? "" : ", ") + one;
  return out.empty() ? at(finding) : out;
}

bool DocTrue(const Doc& doc, std::string_view key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_boolean() && it->get<bool>();
}

Result<Doc> ParseDocument(const std::string& text, std::string_view method) {
  Doc doc = Doc::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return Fail(ErrorCode::kInvalidData, fmt::format("rocmtuned's answer to {} is not a JSON document", method));
  return doc;
}

bool ReadsAskDaemon(const Context& ctx) { return !ctx.root_given && ::geteuid() != 0; }

bool UnknownMethod(const BusReply& reply) { return reply.error_name == bus::kErrorUnknownMethod; }

void PrintJson(const Doc& doc) { fmt::print("{}\n", JsonText(doc)); }

Fetched FromDaemon(const Context& ctx, const BusReply& reply, std::string_view method) {
  if (!reply.ok()) return tl::unexpected(BusFailed(ctx, reply));
  auto doc = ParseDocument(reply.text, method);
  if (!doc) return tl::unexpected(Failed(ctx, doc.error(), kExitFailed));
  return std::move(*doc);
}

Fetched FromLocal(const Context& ctx, Result<Doc> doc, int exit_code) {
  if (!doc) return tl::unexpected(Failed(ctx, doc.error(), exit_code < 0 ? ExitFor(doc.error()) : exit_code));
  return std::move(*doc);
}

}  // namespace rocmtune::client
