#include "boot/grub_config.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "util/shell_words.h"
#include "util/text.h"

// Evaluation of /etc/default/grub as grub-mkconfig sources it; the edits are in grub_edit.cc.
namespace rocmtune::boot {
namespace {

// Assigned by grub-mkconfig (2.06, before it sources the files) from grub-probe, or with
// version-dependent constants: a file that reads them gets a value rocmtune cannot know offline.
constexpr std::array<std::string_view, 8> kSetByGrubMkconfig = {
    "GRUB_DEVICE",           "GRUB_DEVICE_UUID", "GRUB_DEVICE_PARTUUID",   "GRUB_DEVICE_BOOT",
    "GRUB_DEVICE_BOOT_UUID", "GRUB_FS",          "GRUB_DISABLE_OS_PROBER", "GRUB_EARLY_INITRD_LINUX_STOCK"};

using Vars = std::map<std::string, std::optional<std::string>, std::less<>>;
using Pieces = std::map<std::string, std::vector<GrubPiece>, std::less<>>;

// `here` is where the assignment's literal text is; `pieces` receives the value's pieces.
std::optional<std::string> Resolve(const std::vector<shell::Segment>& segs, const Vars& vars, const Pieces& var_pieces,
                                   const GrubPiece& here, std::vector<GrubPiece>& pieces, std::string& why) {
  std::string value;
  for (const shell::Segment& seg : segs) {
    if (seg.kind == shell::Segment::kText) {
      value += seg.text;
      pieces.push_back({seg.text, here.file, here.line});
    } else if (seg.kind == shell::Segment::kCommand) {
      why = "command substitution " + shell::Short(seg.text);
      return std::nullopt;
    } else if (auto it = vars.find(seg.text); it != vars.end()) {
      if (!it->second) {
        why = fmt::format("${} is unknown", seg.text);
        return std::nullopt;
      }
      value += *it->second;
      if (auto p = var_pieces.find(seg.text); p != var_pieces.end())
        pieces.insert(pieces.end(), p->second.begin(), p->second.end());
    } else if (std::find(kSetByGrubMkconfig.begin(), kSetByGrubMkconfig.end(), seg.text) != kSetByGrubMkconfig.end()) {
      why = fmt::format("${} is set by grub-mkconfig from grub-probe", seg.text);
      return std::nullopt;
    } else if (!seg.text.starts_with("GRUB_")) {
      why = fmt::format("${} is not assigned in these files (environment or grub-mkconfig variable)", seg.text);
      return std::nullopt;
    }  // else: a GRUB_ variable nobody assigned expands to nothing
  }
  return value;
}

class Evaluator {
 public:
  void Source(const std::string& rel, std::string_view content) {
    out_.sourced.push_back(rel);
    for (const shell::Command& cmd : shell::ParseScript(content)) {
      if (!cmd.unsupported.empty()) {
        Unsupported(fmt::format("{}:{}: {}", rel, cmd.line, cmd.unsupported));
        continue;
      }
      for (const shell::Assignment& a : cmd.assignments) {
        std::string why;
        std::vector<GrubPiece> pieces;
        std::optional<std::string> value = Resolve(a.value, vars_, pieces_, {"", rel, a.line}, pieces, why);
        if (!value) out_.opaque.push_back(fmt::format("{}:{}: {} ({})", rel, a.line, a.name, why));
        pieces_[a.name] = value ? std::move(pieces) : std::vector<GrubPiece>{};
        vars_[a.name] = std::move(value);
        origin_[a.name] = fmt::format("{}:{}", rel, a.line);
      }
    }
  }

  void Unsupported(std::string what) {
    tainted_ = true;
    out_.unsupported.push_back(std::move(what));
  }

  GrubVars Finish() {
    auto get = [&](std::string_view name) -> std::optional<std::string> {
      if (tainted_) return std::nullopt;
      auto it = vars_.find(name);
      return it == vars_.end() ? std::optional<std::string>("") : it->second;
    };
    auto where = [&](const std::string& name) -> std::optional<std::string> {
      auto it = origin_.find(name);
      return it == origin_.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    out_.linux = get("GRUB_CMDLINE_LINUX");
    out_.linux_default = get("GRUB_CMDLINE_LINUX_DEFAULT");
    out_.linux_origin = where("GRUB_CMDLINE_LINUX");
    out_.linux_default_origin = where("GRUB_CMDLINE_LINUX_DEFAULT");
    if (out_.linux) out_.linux_pieces = pieces_["GRUB_CMDLINE_LINUX"];
    if (out_.linux_default) out_.linux_default_pieces = pieces_["GRUB_CMDLINE_LINUX_DEFAULT"];
    return std::move(out_);
  }

 private:
  GrubVars out_;
  Vars vars_;
  Pieces pieces_;
  std::map<std::string, std::string> origin_;
  bool tainted_ = false;
};

}  // namespace

Result<GrubVars> EvaluateGrubDefaults(const sys::Root& root, bool debian_dropins) {
  Evaluator ev;
  const std::string main_file(kGrubDefaultsPath);
  if (root.ResolvedTypeOf(main_file) == sys::EntryType::kFile) {  // `test -f`
    auto content = root.ReadFile(main_file);
    if (!content) return tl::unexpected(content.error());
    ev.Source(main_file, *content);
  }
  const std::string dir = "etc/default/grub.d";
  if (debian_dropins && root.IsDirectory(dir)) {
    auto names = root.ListDir(dir);
    if (!names) return tl::unexpected(names.error());
    std::sort(names->begin(), names->end());  // std::string compares bytes as unsigned char, like strcmp
    for (const std::string& name : *names) {
      if (name.starts_with('.') || !name.ends_with(".cfg")) continue;  // what `*.cfg` matches
      std::string rel = sys::JoinPath(dir, name);
      sys::EntryType type = root.ResolvedTypeOf(rel);
      if (type == sys::EntryType::kMissing) continue;  // `[ -e "${x}" ]` is false
      if (type != sys::EntryType::kFile) {
        ev.Unsupported(fmt::format("{}: not a regular file (`.` fails and grub-mkconfig stops)", rel));
        continue;
      }
      auto content = root.ReadFile(rel);
      if (!content) return tl::unexpected(content.error());
      ev.Source(rel, *content);
    }
  }
  return ev.Finish();
}

std::optional<std::string> EffectiveLinuxArgs(const GrubVars& vars) {
  if (!vars.linux || !vars.linux_default) return std::nullopt;
  return std::string(text::Trim(*vars.linux + " " + *vars.linux_default));
}

std::optional<std::vector<CmdlineTokenAt>> EffectiveLinuxTokens(const GrubVars& vars) {
  if (!EffectiveLinuxArgs(vars)) return std::nullopt;
  // 10_linux's "${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}", byte by byte with the piece
  // each byte came from (-1: the space between the two).
  std::string args;
  std::vector<int> from;
  std::vector<GrubPiece> pieces = vars.linux_pieces;
  auto append = [&](const std::vector<GrubPiece>& list, size_t first) {
    for (size_t i = 0; i < list.size(); ++i) {
      args += list[i].text;
      from.insert(from.end(), list[i].text.size(), static_cast<int>(first + i));
    }
  };
  append(vars.linux_pieces, 0);
  args += ' ';
  from.push_back(-1);
  append(vars.linux_default_pieces, pieces.size());
  pieces.insert(pieces.end(), vars.linux_default_pieces.begin(), vars.linux_default_pieces.end());
  std::vector<CmdlineTokenAt> out;
  for (const TokenSpan& span : KernelTokenSpans(args)) {
    std::string token = args.substr(span.begin, span.end - span.begin);
    if (token.find('$') != std::string::npos) continue;  // a GRUB variable expanded at boot, not a token
    const int index = from[span.begin];
    if (index < 0) continue;  // cannot happen: a token never starts with a space
    const GrubPiece& piece = pieces[static_cast<size_t>(index)];
    // The piece's own newlines before the token: a quoted value can span lines.
    size_t piece_begin = span.begin;
    while (piece_begin > 0 && from[piece_begin - 1] == index) --piece_begin;
    int line = piece.line + static_cast<int>(std::count(args.begin() + static_cast<std::ptrdiff_t>(piece_begin),
                                                        args.begin() + static_cast<std::ptrdiff_t>(span.begin), '\n'));
    out.push_back({piece.file, line, std::move(token)});
  }
  return out;
}

}  // namespace rocmtune::boot
