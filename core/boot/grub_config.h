// The GRUB side of the cmdline backend: what GRUB_CMDLINE_LINUX{,_DEFAULT} evaluate to when
// grub-mkconfig sources /etc/default/grub (and, on Debian/Ubuntu, /etc/default/grub.d/*.cfg),
// computed WITHOUT running a shell; and edits of /etc/default/grub and rocmtune's grub.d drop-in
// (BLS entries and /etc/kernel/cmdline: cmdline_tokens.h).
// Nothing here writes a file: every function returns the new content. Evaluation is in
// grub_config.cc, edits in grub_edit.cc.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "boot/cmdline_tokens.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::boot {

// rocmtune's drop-in (Debian-style GRUB) is plan::kGrubDropInPath (plan/owned_paths.h).
// The file grub-mkconfig sources first, and the two variables 10_linux puts on the command line.
inline constexpr std::string_view kGrubDefaultsPath = "etc/default/grub";
inline constexpr std::string_view kGrubCmdlineLinux = "GRUB_CMDLINE_LINUX";
inline constexpr std::string_view kGrubCmdlineLinuxDefault = "GRUB_CMDLINE_LINUX_DEFAULT";

// A part of a variable's value and where its bytes were written: the file and line of the
// assignment whose literal text holds them (a `$VAR` reference brings the pieces of VAR's value).
struct GrubPiece {
  std::string text;
  std::string file;  // root-relative
  int line = 0;      // 1-based line of the assignment
};

struct GrubVars {
  // Values after sourcing; nullopt: unknown (see `unsupported` and `opaque`). A variable no
  // file assigns is "" (grub-mkconfig is assumed to run with no GRUB_CMDLINE_* in its
  // environment, as update-grub from a kernel postinst or from rocmtune's helper does).
  std::optional<std::string> linux, linux_default;
  // "file:line" of the assignment that gave each its value; nullopt: never assigned.
  std::optional<std::string> linux_origin, linux_default_origin;
  // The values as pieces, in order (their texts concatenated are `linux`, `linux_default`);
  // empty when the value is unknown or empty.
  std::vector<GrubPiece> linux_pieces, linux_default_pieces;
  std::vector<std::string> sourced;  // root-relative files, in the order grub-mkconfig sources them
  // "file:line: what" for constructs the evaluator does not model (if/for/functions, `. file`,
  // other commands, ${X:-y}, $((...)), special parameters, syntax errors). Any of them could
  // change anything, so one makes both values nullopt.
  std::vector<std::string> unsupported;
  // "file:line: NAME (why)" for assignments whose value is unknown but which cannot change other
  // variables: command substitutions (they run in a subshell, POSIX 2.12), values grub-mkconfig
  // probes before sourcing (GRUB_DEVICE...), names only the environment could set.
  std::vector<std::string> opaque;
};

// Evaluates etc/default/grub, then (debian_dropins) etc/default/grub.d/*.cfg in the order
// grub-mkconfig's `for x in ${sysconfdir}/default/grub.d/*.cfg` visits them: byte order (dash,
// Debian's /bin/sh, sorts glob matches with strcmp in expand.c), no names starting with
// '.', entries that do not exist (dangling symlinks) skipped. The files are read with
// util/shell_words.h (what it models is listed there); $NAME and ${NAME} are expanded here.
// Errors only for files that exist but cannot be read.
Result<GrubVars> EvaluateGrubDefaults(const sys::Root& root, bool debian_dropins);

// "$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT" as 10_linux passes it to the normal entries,
// trimmed; nullopt when either is unknown. 10_linux itself adds BOOT_IMAGE/root/ro, and may add
// rootflags=subvol= (btrfs) and, on Ubuntu, $vt_handoff after "splash".
std::optional<std::string> EffectiveLinuxArgs(const GrubVars& vars);
// The kernel tokens of EffectiveLinuxArgs, each with the file and line where it was written (of
// its first byte; a quoted value over several lines counts its newlines); nullopt when unknown.
std::optional<std::vector<CmdlineTokenAt>> EffectiveLinuxTokens(const GrubVars& vars);

// Edits the tokens inside the value of the LAST assignment of `var` in a file like
// /etc/default/grub (upstream GRUB on Arch, RHEL's grub2 without BLS), keeping every other byte
// and the value's quoting ("...", '...' or bare; a bare value that gains a space gets "...").
// No assignment: appends `VAR="tokens"`. Refused (kInvalidData) when that value is not a plain
// literal ($, `, \ or mixed quoting) or the file has constructs the evaluator does not model.
Result<std::string> SetAssignmentTokens(std::string_view file_content, std::string_view var,
                                        std::span<const std::string> add_tokens,
                                        std::span<const std::string> remove_keys);

// The whole content of plan::kGrubDropInPath appending `tokens` to `var` (GRUB_CMDLINE_LINUX or
// GRUB_CMDLINE_LINUX_DEFAULT):
//   GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt"
// This form (rather than "${VAR:+$VAR }...") is the simplest one dash, bash and
// EvaluateGrubDefaults agree on; when the variable is empty the value starts with a space, which the kernel's
// parser and 10_linux ignore. Tokens are validated (ValidateToken), so nothing in them is special
// inside "...".
Result<std::string> RocmtuneDropIn(std::string_view var, std::span<const std::string> tokens);
// The tokens of a drop-in that is byte for byte what RocmtuneDropIn would write; nullopt for any
// other text. A hand edit that keeps the form (an added token) is not caught here: drift is
// found by comparing with the content the journal recorded.
std::optional<std::vector<std::string>> RocmtuneDropInTokens(std::string_view content, std::string_view var);

}  // namespace rocmtune::boot
