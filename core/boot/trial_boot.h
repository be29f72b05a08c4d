// Trial boots (Setup::PlanTrial, setup.h): the entries of rocmtune's own that boot
// the default entry's command line plus a trial's tokens once, and the one-shot switches that pick
// them. What is here computes text only (nothing reads the system): the setups (trial_setups.cc)
// read the files and plan the ops, and the helper's allow-list (helper/trial_boot_rules.cc)
// computes the same entry again from the same files and refuses any other content.
//
// The entry names one trial: a first line `# rocmtune-trial id=<id> tokens=<t1> <t2> ...`
// (comments in grub.cfg and in BLS entries alike), from which the helper takes the id and the
// tokens it then checks and renders again.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "boot/setup.h"
#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::boot {

// The id of the trial entry in every setup: GRUB's `menuentry --id`, the BLS entry's file name
// without ".conf" (blscfg and systemd-boot both take the file name as the id).
inline constexpr std::string_view kTrialEntryId = plan::kTrialEntryId;
// The command-line key whose value is the trial's id (`rocmtune.trial=<id>`), and panic=N.
inline constexpr std::string_view kTrialIdKey = "rocmtune.trial";

// GRUB (grub-debian, grub): the entry, beside grub.cfg; the script the package installs that
// makes grub.cfg source it; the environment block the switch edits.
inline constexpr std::string_view kGrubCfgPath = "boot/grub/grub.cfg";
inline constexpr std::string_view kGrubTrialEntryPath = "boot/grub/rocmtune-trial.cfg";
inline constexpr std::string_view kGrubTrialScriptPath = "etc/grub.d/42_rocmtune";
inline constexpr std::string_view kGrubEnvPath = "boot/grub/grubenv";
// grub-bls: the entry beside the others; Fedora's grubenv (grub2-editenv's `-`).
inline constexpr std::string_view kBlsTrialEntryPath = "boot/loader/entries/rocmtune-trial.conf";
inline constexpr std::string_view kGrub2EnvPath = "boot/grub2/grubenv";
// systemd-boot: the entry's file name under $ESP/loader/entries, and the ESPs rocmtune knows
// (detect/boot_setup.cc looks for loader.conf in the same places, in this order).
inline constexpr std::string_view kTrialEntryFile = "rocmtune-trial.conf";
inline constexpr const auto& kEspCandidates = detect::kEspCandidates;
// "$ESP/loader/entries/rocmtune-trial.conf" for each of kEspCandidates.
std::vector<std::string> SdBootTrialEntryPaths();

// Every token a trial may carry is a valid kernel token (ValidateToken) with nothing GRUB's
// script parser acts on ('{', '}', '#'), the id token's value is [A-Za-z0-9-]{1,64}, and there
// is exactly one id token. Err(kInvalidArgument) names the token.
Result<void> CheckTrialTokens(std::span<const std::string> tokens);
// The id token's value (`rocmtune.trial=<id>`), when exactly one is there.
std::optional<std::string> TrialIdOf(std::span<const std::string> tokens);

// The first line of every trial entry, and the trial it names (nullopt: not such a line).
std::string TrialHeader(const TrialBoot& trial);
std::optional<TrialBoot> ParseTrialHeader(std::string_view content);

// GRUB: the default entry of `grub_cfg` as GRUB picks it (set default=..., `${saved_entry}`
// from `grubenv`, numbers, titles, ids and "a>b" paths into submenus), copied with its `linux`
// lines carrying the trial's tokens, as the whole content of kGrubTrialEntryPath.
Result<std::string> GrubTrialEntry(std::string_view grub_cfg, std::string_view grubenv, const TrialBoot& trial);
// Whether grub.cfg already sources the entry (42_rocmtune's output is in it).
bool GrubCfgSourcesTrialEntry(std::string_view grub_cfg);
// A variable of a GRUB environment block ("# GRUB Environment Block", NAME=VALUE lines, '#'
// padding); nullopt when unset.
std::optional<std::string> GrubEnvValue(std::string_view grubenv, std::string_view name);

// BLS (grub-bls, systemd-boot): `entry` (a BLS entry's content) with a title of the trial's, its
// last `options` line carrying the tokens, and the header. grub-bls passes its `grubenv`: the
// `$name` words of options ($kernelopts, $tuned_params) are expanded from it; systemd-boot passes
// nullopt (it expands nothing).
Result<std::string> BlsTrialEntry(std::string_view entry, std::optional<std::string_view> grubenv,
                                  const TrialBoot& trial);

// The whole trial entry of a setup: Setup::RenderTrialEntry (setup.h).

}  // namespace rocmtune::boot
