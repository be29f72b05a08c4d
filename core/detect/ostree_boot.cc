// ostree-booted systems: which tool owns the deployments, from files ostree, rpm-ostree and
// bootc own. Sources: ostree src/libostree/ostree-sysroot.h (OSTREE_PATH_BOOTED
// "/run/ostree-booted", made by ostree-prepare-root in the initramfs), the `ostree=` kernel
// argument (ostree-sysroot-deploy.c writes it into each BLS entry's options), bootc
// crates/lib/src/status.rs (a deployment is bootc's when its origin has a container image and no
// rpm-ostree group).
#include "detect/ostree_boot.h"

#include <ini.h>

#include <algorithm>
#include <iterator>

#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr std::string_view kOstreeBooted = "run/ostree-booted";
constexpr size_t kMaxOriginBytes = 1 << 16;
constexpr int kMaxOstreeLinks = 16;
constexpr size_t kInihMaxLine = 199;  // inih's INI_MAX_LINE (200) less the newline

// GKeyFile lists are `a;b;` (g_key_file_get_string_list); empty items are not items.
std::vector<std::string> SplitKeyFileList(std::string_view value) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= value.size();) {
    size_t semi = value.find(';', start);
    std::string_view item = value.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    if (!item.empty()) out.emplace_back(item);
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
  return out;
}

// The non-empty components of a path.
std::vector<std::string> PathComponents(std::string_view path) {
  std::vector<std::string> out;
  for (size_t start = 0; start < path.size();) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

std::string JoinComponents(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// `path` (root-relative) with every symlink in it followed beneath the root, as ostree's own
// relative links go (ostree/boot.1 -> boot.1.1, ostree/boot.1.1/OS/BOOTCSUM/0 ->
// ../../../deploy/OS/deploy/CSUM.0); nullopt past kMaxOstreeLinks links or above the root.
std::optional<std::string> ResolveBeneath(const sys::Root& root, std::string_view path) {
  std::vector<std::string> done, todo = PathComponents(path);
  std::reverse(todo.begin(), todo.end());
  int links = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.back());
    todo.pop_back();
    if (c == ".") continue;
    if (c == "..") {
      if (done.empty()) return std::nullopt;
      done.pop_back();
      continue;
    }
    done.push_back(std::move(c));
    if (root.TypeOf(JoinComponents(done)) != sys::EntryType::kSymlink) continue;
    auto target = root.ReadLink(JoinComponents(done));
    if (++links > kMaxOstreeLinks || !target || target->empty()) return std::nullopt;
    done.pop_back();
    if (target->front() == '/') done.clear();
    std::vector<std::string> parts = PathComponents(*target);
    todo.insert(todo.end(), std::make_move_iterator(parts.rbegin()), std::make_move_iterator(parts.rend()));
  }
  return JoinComponents(done);
}

std::optional<std::string> OstreeArgument(const sys::Root& root) {
  auto cmdline = root.ReadFile("proc/cmdline", 65536);
  if (!cmdline) return std::nullopt;
  for (std::string_view t : text::Tokens(*cmdline))
    if (t.starts_with("ostree=") && t.size() > 7) return std::string(t.substr(7));
  return std::nullopt;
}

}  // namespace

OstreeOrigin ParseOstreeOrigin(std::string_view content) {
  OstreeOrigin origin;
  if (content.size() > kMaxOriginBytes) return origin;  // not an origin ostree wrote: nothing of it is read
  // inih reads a C string (a NUL byte ends it) in lines of at most INI_MAX_LINE (200) bytes and
  // would cut a longer value short: such lines are left out whole, so their keys are unknown
  // rather than wrong. GKeyFile has no inline comments; `;` ends a comment in inih only after a
  // space, which its lists ("a;b;") never have.
  std::string text;
  for (std::string_view line : text::SplitLines(content.substr(0, content.find('\0'))))
    if (line.size() < kInihMaxLine) text.append(line).push_back('\n');
  auto handler = [](void* user, const char* section, const char* name, const char* value) -> int {
    auto& o = *static_cast<OstreeOrigin*>(user);
    std::string_view s = section, k = name, v = value;
    if (s == "rpmostree" || s == "packages" || s == "overrides" || s == "modules") o.rpmostree_changes = true;
    if (s == "origin" && (k == "refspec" || (k == "baserefspec" && !o.refspec)) && !v.empty())
      o.refspec = std::string(v);
    if (s == "origin" && k == "container-image-reference" && !v.empty()) o.container_image = std::string(v);
    if (s == "rpmostree" && k == "initramfs-etc") o.initramfs_etc = SplitKeyFileList(v);
    return 1;
  };
  ini_parse_string(text.c_str(), handler, &origin);  // a line it cannot parse is skipped
  return origin;
}

std::optional<std::string> DeploymentDir(const sys::Root& root, std::string_view ostree_arg) {
  if (!ostree_arg.starts_with("/ostree/")) return std::nullopt;
  auto dir = ResolveBeneath(root, ostree_arg.substr(1));
  if (!dir || !root.IsDirectory(*dir)) return std::nullopt;
  // .../ostree/deploy/OS/deploy/NAME (the physical root's ostree/, or /sysroot/ostree/ as a
  // booted deployment reaches it through its /ostree -> sysroot/ostree link).
  std::vector<std::string> parts = PathComponents(*dir);
  size_t n = parts.size();
  if (n < 5 || parts[n - 5] != "ostree" || parts[n - 4] != "deploy" || parts[n - 2] != "deploy") return std::nullopt;
  return dir;
}

std::optional<std::string> BootedDeployment(const sys::Root& root) {
  auto arg = OstreeArgument(root);
  return arg ? DeploymentDir(root, *arg) : std::nullopt;
}

std::optional<OstreeOrigin> ReadOrigin(const sys::Root& root, std::string_view deployment_dir) {
  auto content = root.ReadFile(std::string(deployment_dir) + ".origin", kMaxOriginBytes);
  if (!content) return std::nullopt;
  return ParseOstreeOrigin(*content);
}

bool DetectOstreeBoot(const sys::Root& root, BootSetup& setup) {
  if (!root.Exists(kOstreeBooted)) return false;
  setup.evidence.emplace_back(kOstreeBooted);
  if (OstreeArgument(root)) setup.evidence.emplace_back("proc/cmdline");
  for (std::string_view p : {"ostree", "sysroot", "boot/loader"})
    if (root.Exists(p)) setup.evidence.emplace_back(p);
  std::optional<std::string> booted = BootedDeployment(root);
  std::optional<OstreeOrigin> origin = booted ? ReadOrigin(root, *booted) : std::nullopt;
  if (origin) setup.evidence.push_back(*booted + ".origin");
  bool bootc = root.Exists("usr/bin/bootc") && origin && origin->container_image && !origin->rpmostree_changes;
  if (bootc) {
    setup.kind = BootKind::kBootc;
    setup.evidence.emplace_back("usr/bin/bootc");
    return true;
  }
  if (root.Exists("usr/bin/rpm-ostree")) {
    setup.kind = BootKind::kRpmOstree;
    setup.evidence.emplace_back("usr/bin/rpm-ostree");
    // The image's initramfs is built with the deployment (dracut on the build server); the
    // machine adds its /etc files to it only with `rpm-ostree initramfs-etc`.
    setup.initramfs = InitramfsKind::kRpmOstreeInitramfsEtc;
    setup.initramfs_evidence.emplace_back("usr/bin/rpm-ostree");
    return true;
  }
  // Booted from an ostree deployment that neither rpm-ostree nor bootc manages (plain `ostree
  // admin`, or a bootc image origin without /usr/bin/bootc): no tool rocmtune may run owns its
  // kernel arguments, and editing GRUB's files would be lost at the next deployment.
  setup.why_unknown =
      "an ostree deployment that neither rpm-ostree nor bootc manages here: change its kernel "
      "arguments with `ostree admin deploy --karg=...`";
  return true;
}

}  // namespace rocmtune::detect
