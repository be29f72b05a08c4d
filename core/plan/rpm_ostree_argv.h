// The rpm-ostree command lines rocmtune runs on an rpm-ostree system (boot/ostree_setups.h),
// in the fixed forms the helper allows (helper/regenerator_rules.cc) and undoes. rpm-ostree is
// not in Debian: every form is checked against rpm-ostree's own CLI, src/app/rpmostree-builtin-
// kargs.cxx and -initramfs-etc.cxx and man/rpm-ostree.xml (coreos/rpm-ostree):
//   rpm-ostree kargs --append=K=V ...            a new deployment with K=V added last
//   rpm-ostree kargs --delete=K=V ...            ... without that exact K=V
//   rpm-ostree kargs --replace=K=OLD=NEW ...     ... with K=OLD's value made NEW (ostree
//                                                ostree_kernel_args_new_replace: the first '='
//                                                ends K, the next one OLD)
//   rpm-ostree initramfs-etc --track=/etc/F      F carried into the initramfs from the next deployment on
//   rpm-ostree initramfs-etc --untrack=/etc/F    ... no longer
//   rpm-ostree initramfs-etc --force-sync        a new deployment with the tracked files' current content
// One kind of kargs flag an op: rpm-ostree refuses --delete with --replace in one call
// ("Cannot specify both --delete and --replace"), and an op's undo (InverseRpmOstree) must be
// one call too.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::plan {

inline constexpr std::string_view kRpmOstree = "rpm-ostree";
inline constexpr std::string_view kKargs = "kargs";
inline constexpr std::string_view kKargsAppend = "--append=";
inline constexpr std::string_view kKargsDelete = "--delete=";
inline constexpr std::string_view kKargsReplace = "--replace=";
inline constexpr std::string_view kInitramfsEtc = "initramfs-etc";
inline constexpr std::string_view kTrack = "--track=";
inline constexpr std::string_view kUntrack = "--untrack=";
inline constexpr std::string_view kForceSync = "--force-sync";

// `--replace=` of a token `key=old` by `key=new`: "--replace=key=old=new".
std::string KargsReplaceArg(std::string_view key, std::string_view old_value, std::string_view new_value);

// The three parts of a --replace value ("K=OLD=NEW"), as ostree splits it; nullopt when it has
// fewer than two '='.
struct KargsReplace {
  std::string key, old_value, new_value;
};
std::optional<KargsReplace> ParseKargsReplace(std::string_view value);

// The command that undoes an rpm-ostree command rocmtune ran: --append <-> --delete, --replace
// K=OLD=NEW <-> K=NEW=OLD, --track <-> --untrack, --force-sync again (the files were put back
// first); nullopt for anything else (not rpm-ostree, or a form rocmtune does not make).
std::optional<std::vector<std::string>> InverseRpmOstree(const std::vector<std::string>& argv);

}  // namespace rocmtune::plan
