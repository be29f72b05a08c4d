// An admin's line that rocmtune may comment out on request (`unset KEY --admin-lines`): the
// files it may touch that way and the commented form of a line. A hand-written
// HSA_OVERRIDE_GFX_VERSION=10.3.0 in /etc/environment keeps crashing an RDNA1 card whatever
// rocmtune's own drop-ins say; the admin asks rocmtune to switch exactly that
// line off, journaled so `revert` and `reset` put the file back byte for byte.
// The planner (knobs/admin_lines.h) makes such edits; the helper re-checks each one
// (helper/admin_line_rules.cc). Paths are root-relative.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::plan {

enum class AdminLineFile {
  kEnvList,   // KEY=VALUE lists: /etc/environment (pam_env), /etc/environment.d/*.conf (environment.d(5))
  kEnvShell,  // /etc/profile.d/*.sh, sourced by login shells
  kModprobe,  // /etc/modprobe.d/*.conf: an admin's `options amdgpu|ttm|amdttm NAME=VALUE` line
};

// Which kind of admin file `path` is, when rocmtune may comment out one of its lines: only
// these files and never rocmtune's own drop-ins (they are rewritten whole). /etc/profile,
// /etc/bash.bashrc, /usr/lib/environment.d and /usr/lib/modprobe.d (and /lib, /usr/local/lib,
// /run) are the distribution's or a package's: not here.
std::optional<AdminLineFile> AdminLineFileOf(std::string_view path);

// What a commented-out line starts with. A KEY=VALUE list takes '#' as a comment at the start of
// a line (pam_env.conf(5) for /etc/environment, environment.d(5)), and so does modprobe.d
// (modprobe.d(5); libkmod's kmod_config_parse() skips a line whose column 0 is '#'). In a shell script the line
// becomes the no-op command `:` followed by the comment, so a line that was the only command
// of an if/then or a function body leaves that body valid: sh rejects an empty one (XCU 2.9.4,
// a compound-list must hold a command; bash and dash fail "syntax error near unexpected token").
inline constexpr std::string_view kListMark = "# rocmtune unset: ";
inline constexpr std::string_view kShellMark = ": # rocmtune unset: ";
std::string_view MarkOf(AdminLineFile kind);

// `line` (one line without its '\n', a '\r' kept) commented out.
std::string CommentOut(AdminLineFile kind, std::string_view line);
// The original line when `line` is one rocmtune commented out, else nullopt.
std::optional<std::string_view> CommentedOriginal(AdminLineFile kind, std::string_view line);

// The lines in which two contents with the same number of lines differ, in order (lines split
// at every '\n' exactly, so "a\nb" and "a\nb\n" differ in their count); nullopt when the counts
// differ. A '\r' stays part of its line: changing line endings is a change.
struct LineChange {
  size_t number = 0;  // 1-based
  std::string_view before;
  std::string_view after;
};
std::optional<std::vector<LineChange>> ChangedLines(std::string_view before, std::string_view after);

}  // namespace rocmtune::plan
