// `history` and `verify`: what the journal says (rocmtuned's History / Verify, or the core here),
// as a table or the document.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/history.h"
#include "api/verify.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/table.h"
#include "client/verbs.h"

namespace rocmtune::client {

int RunHistory(const Context& ctx, const Args&) {
  Fetched doc = ReadDocument(
      ctx, "History", {},
      [&]() -> Result<Doc> {
        auto system = ctx.LoadSystem();
        if (!system) return tl::unexpected(system.error());
        return api::HistoryJson(api::History(*system));
      },
      kExitFailed);
  if (!doc) return doc.error();
  if (ctx.json) {
    PrintJson(*doc);
    return kExitOk;
  }
  const Doc& txns = (*doc)["transactions"];
  if (!txns.is_array() || txns.empty()) {
    fmt::print("No transactions: rocmtune has changed nothing{}.\n", ctx.root_given ? " on " + ctx.root : "");
    return kExitOk;
  }
  Table table({"ID", "TIME", "WHAT", "CHANGES", "STATE"});
  for (const Doc& t : txns) {
    size_t changes = t.contains("changes") && t["changes"].is_array() ? t["changes"].size() : 0;
    table.AddRow({Field(t, "id"), Field(t, "time"), Field(t, "what"), std::to_string(changes), Field(t, "effect")});
  }
  fmt::print("{}", table.Render());
  return kExitOk;
}

int RunVerify(const Context& ctx, const Args&) {
  Fetched doc = ReadDocument(
      ctx, "Verify", {},
      [&]() -> Result<Doc> {
        auto system = ctx.LoadSystem();
        if (!system) return tl::unexpected(system.error());
        return api::VerifyJson(api::Verify(*system));
      },
      kExitFailed);
  if (!doc) return doc.error();
  const Doc& differences = (*doc)["differences"];
  bool ok = (*doc)["ok"].is_boolean() && (*doc)["ok"].get<bool>();
  if (ctx.json) {
    PrintJson(*doc);
  } else if (ok) {
    fmt::print("Verified: everything rocmtune configured is in effect and its files are as it left them.\n");
  } else if (differences.is_array()) {
    Table table({"KIND", "WHAT", "DETAIL"});
    for (const Doc& d : differences) table.AddRow({Field(d, "kind"), Field(d, "subject"), Field(d, "message", "")});
    fmt::print("{}", table.Render());
  }
  return ok ? kExitOk : kExitVerifyDiffers;
}

}  // namespace rocmtune::client
