// The systemd syntaxes a unit's environment is written in, read as systemd reads them (files are
// read, never run). Used by context.cc; the pieces are here so tests can check each rule alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knobs/env_sources.h"
#include "util/result.h"

namespace rocmtune::program {

// KEY=VALUE lines as systemd's EnvironmentFile= and environment.d read them (src/basic/env-file.c
// parse_env_file_internal): '#'/';' comments, leading whitespace and whitespace around '=' dropped,
// unquoted values lose trailing whitespace, '…' literal, "…" with \ escaping only \"$`\ and a
// newline, a backslash-newline joins lines, and reading stops at the first NUL byte (a C string).
// Invalid UTF-8 in a key or value makes systemd refuse the whole file (check_utf8ness_and_warn):
// kInvalidData. Names that are not variable names are dropped, as strv_env_clean does. `line` is
// the line the key starts on; `file` is left empty.
Result<std::vector<knobs::EnvSetting>> ParseEnvFile(std::string_view content);

// One Environment= (or DefaultEnvironment=) value split as config_parse_environ does
// (src/core/load-fragment.c: extract_first_word with EXTRACT_CUNESCAPE|EXTRACT_UNQUOTE): words
// separated by whitespace, quotes anywhere in a word removed, C escapes decoded. An unbalanced
// quote or a bad escape ends the line there ("Invalid syntax, ignoring"): `complete` false.
struct EnvironmentWords {
  std::vector<std::string> words;
  bool complete = true;
};
EnvironmentWords SplitEnvironmentValue(std::string_view rvalue);

// A unit file's assignments (src/shared/conf-parser.c): [Section] headers, '#'/';' comment lines,
// a trailing backslash joining the next line (replaced by a space; comment lines in between are
// skipped), whitespace around key and value trimmed.
struct UnitAssignment {
  std::string section;
  std::string key;
  std::string value;
  int line = 0;
};
std::vector<UnitAssignment> ParseUnitFile(std::string_view content);

// The unit specifiers systemd.unit(5) "Specifiers" resolved in an Environment= word (unit_env_printf
// runs after the unquoting): %% %n %N %p %i %j always; %h %u %U for the system manager ("/root",
// "root", "0": the manager's user) or %h for a user manager whose home is known. Anything else
// (%H %m %b %t ...): nullopt, the value is known only on the machine when the unit starts.
struct UnitNames {
  std::string unit;  // "foo@bar.service"
  std::string home;  // "/home/u" for a user unit, empty when unknown or for the system
  bool user = false;
};
std::optional<std::string> ResolveSpecifiers(std::string_view word, const UnitNames& names);

// A unit name as systemd accepts one (src/basic/unit-name.c unit_name_is_valid): [A-Za-z0-9:_.\-@]
// of at most 255 bytes, one known type suffix, "@" only as template or instance.
bool IsUnitName(std::string_view name);

}  // namespace rocmtune::program
