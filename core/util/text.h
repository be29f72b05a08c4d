// Text helpers for sysfs/procfs/config content, which arrives with NUL padding,
// trailing spaces and CRLF in real captures.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::text {

// Drops NUL bytes and trims ASCII whitespace at both ends.
std::string Clean(std::string_view raw);

std::string_view Trim(std::string_view s);

std::vector<std::string_view> SplitLines(std::string_view s);

// The fields of a `sep`-separated record, empty ones kept ("a::b" by ':' is "a", "", "b"): the
// lines of /etc/passwd and /etc/group, a group's member list by ','.
std::vector<std::string_view> SplitFields(std::string_view s, char sep);

// Whitespace-separated tokens.
std::vector<std::string_view> Tokens(std::string_view s);

// "key value" per line (KFD properties). Later duplicates win; lines without a value are skipped.
std::map<std::string, std::string, std::less<>> ParseKeySpaceValue(std::string_view content);

// "KEY=VALUE" per line (uevent). Values are taken verbatim (no shell quoting).
std::map<std::string, std::string, std::less<>> ParseKeyEqualsValue(std::string_view content);

// Strict numbers: the whole (trimmed) string must be a number that fits.
std::optional<uint64_t> ParseU64(std::string_view s, int base = 10);
std::optional<int64_t> ParseI64(std::string_view s);
// "0x1a" or "1a" as hex.
std::optional<uint64_t> ParseHex(std::string_view s);

std::string ToLower(std::string_view s);

// Text for a terminal: C0 controls (but \n and \t when `multiline`), DEL, C1 controls
// (U+0080..U+009F), the bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069)
// and bytes that are not valid UTF-8 become "\xNN", so file content shown to people cannot
// retitle the window, clear the screen, forge lines or reorder them. Printable UTF-8 ("–") stays.
std::string EscapeControl(std::string_view s, bool multiline = false);

// How many bytes at the end of `s` begin a UTF-8 sequence that is not complete yet (0..3): a
// stream filter holds them back until the rest arrives.
size_t IncompleteUtf8Tail(std::string_view s);

}  // namespace rocmtune::text
