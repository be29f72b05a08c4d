// The documents verbs print: the core's JSON (rocmtune.*.v1), made here or by rocmtuned. People's
// tables are rendered from the document, never from the core's structs, so the daemon path and
// the local path cannot print different things.
#pragma once

#include <string>
#include <string_view>

// The whole json.hpp, not json_fwd.hpp: ReadDocumentAsUser below returns a Fetched by value.
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "client/context.h"
#include "client/daemon_link.h"
#include "util/result.h"

namespace rocmtune::client {

using Doc = nlohmann::ordered_json;

// A field as table text: a string as it is, a number or boolean as JSON writes it, `unknown`
// for null or a missing key.
std::string Field(const Doc& doc, std::string_view key, std::string_view unknown = "-");

// Field, followed by the size when the document gives `<key>_bytes` (size knobs, api/size_json.h):
// "3047936 (11.6 GiB)".
std::string SizedField(const Doc& doc, std::string_view key, std::string_view unknown = "-");

// Where a finding's setting is written, as on the machine: "/etc/default/grub:6, /proc/cmdline:1"
// from its `places`, else from `file` and `line`; empty when it names no file.
std::string PlacesText(const Doc& finding);

// Whether the member `key` is the boolean true.
bool DocTrue(const Doc& doc, std::string_view key);

// A document the daemon sent. A reply that is not JSON fails (nothing half-rendered).
Result<Doc> ParseDocument(const std::string& text, std::string_view method);

// Prints the document as --json does (the core's JsonText).
void PrintJson(const Doc& doc);

// The document, or the exit code once the failure was reported (stderr, and under --json the
// error document on stdout).
using Fetched = tl::expected<Doc, int>;

// A read-only verb's document: rocmtuned's answer to METHOD, or made here by `local` (returning
// Result<Doc>) when the daemon path does not apply (client/daemon_link.h).
Fetched FromDaemon(const Context& ctx, const BusReply& reply, std::string_view method);
// `exit_code` < 0: the exit code the error's kind maps to (ExitFor).
Fetched FromLocal(const Context& ctx, Result<Doc> doc, int exit_code = -1);

// Whether a read verb asks rocmtuned first: run by a user (not root) on this machine (no
// --root). The journal is readable by root and group rocmtune only (0640): what only it tells
// (the active profile, rocmtune's pending work) such a user gets from the daemon. Root reads
// here, as does a user when the daemon is not there (the journal's facts are then "unknown").
bool ReadsAskDaemon(const Context& ctx);

// A daemon too old for METHOD: the verb reads here instead.
bool UnknownMethod(const BusReply& reply);

// ReadDocument for the verbs whose local read needs the journal (`profiles`, `show`):
// rocmtuned's answer when ReadsAskDaemon, else (and when no daemon answers) made here by `local`.
template <typename Local>
Fetched ReadDocumentAsUser(const Context& ctx, const char* method, const Append& append, Local local,
                           int local_exit_code = -1) {
  if (ReadsAskDaemon(ctx)) {
    std::optional<BusReply> reply = AskDaemon(ctx, method, append);
    if (reply && !UnknownMethod(*reply)) return FromDaemon(ctx, *reply, method);
  }
  return FromLocal(ctx, local(), local_exit_code);
}

template <typename Local>
Fetched ReadDocument(const Context& ctx, const char* method, const Append& append, Local local,
                     int local_exit_code = -1) {
  std::optional<BusReply> reply = AskDaemon(ctx, method, append);
  if (reply) return FromDaemon(ctx, *reply, method);
  return FromLocal(ctx, local(), local_exit_code);
}

}  // namespace rocmtune::client
