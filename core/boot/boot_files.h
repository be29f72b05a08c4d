// The boot loader's files on an ESP that only root may read. Debian mounts the ESP with
// umask=0077, so rocmtuned (its own user, no capabilities) cannot list /boot/efi; a systemd-boot
// trial copies the default entry from there. rocmtune-helper, root already, reads exactly these
// files for the daemon (its socket's request `read-boot`), and the planner reads them through a
// sys::RootSupplement: nothing else on the ESP, nothing written, and the helper checks the trial
// entry against the ESP again before it writes (trial_boot_rules.cc).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::boot {

// Bounds on what the helper sends: an entry is a few hundred bytes, an ESP holds a few dozen.
inline constexpr size_t kMaxBootFileBytes = 64 * 1024;
inline constexpr size_t kMaxBootFiles = 256;

// Whether this process cannot list an ESP candidate (or its loader/ directory) that exists:
// the planner then needs the helper's copy (EACCES; any other error is not a permission).
bool BootFilesHidden(const sys::Root& root);

// Whether what the ESP holds decides a read of `root`: the boot setup cannot be known without it
// (detect::BootSetup::why_unknown), or the setup's next boot is read from the ESP's entries
// (Setup::ReadsEsp). With BootFilesHidden, status and plans then need the helper's copy.
bool BootFilesDecide(const sys::Root& root);

// $ESP/loader and $ESP/loader/entries (names), loader.conf and entries/*.conf (contents) of
// each ESP candidate, as this process reads them (the helper, as root). A file that is not a
// regular text file under kMaxBootFileBytes is listed but not read.
sys::RootSupplement CollectBootFiles(const sys::Root& root);

// {"dirs": {path: [names]}, "files": {path: content}}; the reader refuses any path that is not
// one CollectBootFiles reads, a name with '/', and more than the bounds above (kInvalidData).
nlohmann::ordered_json BootFilesJson(const sys::RootSupplement& files);
Result<sys::RootSupplement> BootFilesFromJson(std::string_view text);

}  // namespace rocmtune::boot
