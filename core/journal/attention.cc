#include "journal/attention.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "journal/history.h"
#include "journal/writer_probe.h"
#include "plan/owned_paths.h"

namespace rocmtune::journal {
namespace {

// Words as a shell takes them back: plain when safe, else in single quotes.
std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
      return std::isalnum(c) || std::string_view("._=/:,+-@%").find(static_cast<char>(c)) != std::string_view::npos;
    });
    std::string quoted = "'";
    for (char c : w) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? w : quoted + "'");
  }
  return out;
}

// Modification time in nanoseconds, nullopt when it cannot be had (absent, unreadable).
std::optional<int64_t> ModifiedAt(const sys::Root& root, std::string_view rel) {
  auto fd = root.Open(rel, O_PATH | O_CLOEXEC);
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return std::nullopt;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

// The newest modification time among the files `pattern` ("dir/prefix*suffix") names.
std::optional<int64_t> NewestArtifact(const sys::Root& root, std::string_view pattern) {
  if (pattern.empty()) return std::nullopt;
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return ModifiedAt(root, pattern);
  size_t slash = pattern.rfind('/', star);
  std::string dir(pattern.substr(0, slash));
  std::string_view prefix = pattern.substr(slash + 1, star - slash - 1);
  std::string_view suffix = pattern.substr(star + 1);
  auto names = root.ListDir(dir);
  if (!names) return std::nullopt;
  std::optional<int64_t> newest;
  for (const std::string& name : *names) {
    if (name.size() < prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) continue;
    const std::string path = sys::JoinPath(dir, name);
    if (root.ResolvedTypeOf(path) != sys::EntryType::kFile) continue;
    auto t = ModifiedAt(root, path);
    if (t && (!newest || *t > *newest)) newest = t;
  }
  return newest;
}

// Whether the transactions, taken together, leave every file they wrote as the first found it
// (a change and its revert): what the regenerator last built from is then still there.
bool NetUnchanged(const std::vector<const Transaction*>& chain) {
  std::vector<std::pair<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>>> net;
  for (const Transaction* t : chain)
    for (const plan::Op& op : t->ops) {
      if (op.kind != plan::OpKind::kWriteFile && op.kind != plan::OpKind::kRemoveFile) continue;
      if (!ContentsKnown(*t, op)) return false;  // withheld from this reader: say what may be pending
      auto it = std::find_if(net.begin(), net.end(), [&](const auto& n) { return n.first == op.path; });
      if (it == net.end()) net.push_back({op.path, {op.before, op.after}});
      else it->second.second = op.after;
    }
  return std::all_of(net.begin(), net.end(), [](const auto& n) { return n.second.first == n.second.second; });
}

struct Pending {
  const Transaction* txn;
  const RegenStatus* regen;
};

std::string Describe(const sys::Root& root, const Pending& p, std::string_view ids) {
  const plan::Op& op = p.txn->ops[p.regen->op];
  std::string command = JoinWords(op.argv);
  std::string why = p.regen->status == "failed" ? fmt::format("it failed: {}", p.regen->message)
                                                : std::string("left pending, as on a --root tree");
  std::string where = root.IsLive() ? "" : fmt::format(" inside {}", root.path());
  // The service backend tells a running daemon about its drop-in: no boot file is built.
  if (op.backend == plan::BackendId::kService)
    return fmt::format(
        "{} changed a drop-in of power-profiles-daemon, and `{}` has not run since ({}): the "
        "daemon does not know of it yet. Run `{}`{}, then verify again",
        ids, command, why, command, where);
  return fmt::format(
      "{} changed what `{}` builds from, and it has not run since ({}): the boot files still hold the "
      "old settings. Run `{}`{}, then verify again",
      ids, command, why, command, where);
}

}  // namespace

std::string_view AttentionKindName(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::kInterrupted: return "interrupted";
    case AttentionKind::kPendingRegeneration: return "pending-regeneration";
    case AttentionKind::kLeftoverTemporary: return "leftover-temporary";
  }
  return "interrupted";
}

std::vector<Attention> NeedsAttention(const sys::Root& root, const std::vector<Transaction>& txns) {
  std::vector<Attention> out = Interrupted(txns, LastIsRunning(root, txns));
  for (Attention& a : PendingRegenerations(root, txns)) out.push_back(std::move(a));
  for (Attention& a : LeftoverTemporaries(root, txns)) out.push_back(std::move(a));
  return out;
}

std::string RequestCommand(const Transaction& txn) {
  std::vector<std::string> words = {"rocmtunectl", txn.intent.verb};
  if (txn.intent.verb == "apply") {
    words.push_back(txn.intent.profile);
    for (const std::string& id : txn.intent.with) words.insert(words.end(), {"--with", id});
  } else if (txn.intent.verb == "revert") {
    words.push_back(txn.intent.reverts);
  } else {
    words.insert(words.end(), txn.intent.args.begin(), txn.intent.args.end());
  }
  return JoinWords(words);
}

std::vector<Attention> Interrupted(const std::vector<Transaction>& txns, bool writer_running) {
  std::vector<Attention> out;
  for (const Transaction& t : txns) {
    if (t.state != State::kIncomplete) continue;
    if (writer_running && &t == &txns.back()) continue;
    out.push_back({AttentionKind::kInterrupted, fmt::format("transaction {}", t.id),
                   fmt::format("transaction {} ({}) was interrupted: begun but never committed or rolled back, so "
                               "its files may be half-changed. The next change rolls it back first: run `{}` to roll "
                               "it back and make that change whole",
                               t.id, RequestCommand(t), RequestCommand(t))});
  }
  return out;
}

std::vector<Attention> PendingRegenerations(const sys::Root& root, const std::vector<Transaction>& txns) {
  // Per regenerator, the committed transactions that left it not run since it last ran.
  std::vector<std::pair<std::string, std::vector<Pending>>> chains;
  std::vector<Attention> out;
  for (const Transaction& t : txns) {
    if (t.state != State::kCommitted) continue;
    for (const RegenStatus& r : t.regen) {
      const std::string& name = t.ops[r.op].path;
      auto it = std::find_if(chains.begin(), chains.end(), [&](const auto& c) { return c.first == name; });
      if (it == chains.end()) it = chains.insert(chains.end(), {name, {}});
      if (r.status == "done") it->second.clear();
      else it->second.push_back({&t, &r});
    }
  }
  for (auto& [name, chain] : chains) {
    auto regenerator = plan::ParseRegenerator(name);
    auto ran = regenerator ? NewestArtifact(root, plan::Row(*regenerator).artifacts) : std::nullopt;
    // Run by hand after a transaction's commit (its journal file's last write): built from its files.
    std::erase_if(chain, [&](const Pending& p) {
      auto committed = ModifiedAt(root, p.txn->file);
      return ran && committed && *ran > *committed;
    });
    if (chain.empty()) continue;
    // grubby, kernelstub, rpm-ostree and bootc change by their arguments, not from the files: each
    // of their runs is its own (a set and its revert both wait to be run, in order).
    if (regenerator == plan::Regenerator::kGrubby || regenerator == plan::Regenerator::kKernelstub ||
        regenerator == plan::Regenerator::kRpmOstreeKargs || regenerator == plan::Regenerator::kRpmOstreeInitramfsEtc ||
        regenerator == plan::Regenerator::kBootc) {
      for (const Pending& p : chain)
        out.push_back(
            {AttentionKind::kPendingRegeneration, name, Describe(root, p, fmt::format("transaction {}", p.txn->id))});
      continue;
    }
    std::vector<const Transaction*> txns_of;
    for (const Pending& p : chain) txns_of.push_back(p.txn);
    if (NetUnchanged(txns_of)) continue;
    std::string ids;
    for (const Pending& p : chain) ids += (ids.empty() ? "" : ", ") + p.txn->id;
    out.push_back(
        {AttentionKind::kPendingRegeneration, name,
         Describe(root, chain.back(), fmt::format("{} {}", chain.size() == 1 ? "transaction" : "transactions", ids))});
  }
  return out;
}

std::vector<Attention> LeftoverTemporaries(const sys::Root& root, const std::vector<Transaction>& txns) {
  std::vector<std::string> paths(plan::OwnedFiles().begin(), plan::OwnedFiles().end());
  for (const Transaction& t : txns)
    for (const plan::Op& op : t.ops)
      if ((op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile) &&
          std::find(paths.begin(), paths.end(), op.path) == paths.end())
        paths.push_back(op.path);
  std::vector<Attention> out;
  for (const std::string& p : paths) {
    std::string tmp = plan::TemporaryName(p);
    if (root.TypeOf(tmp) == sys::EntryType::kMissing) continue;
    out.push_back({AttentionKind::kLeftoverTemporary, "/" + tmp,
                   fmt::format("a write of /{} by rocmtune-helper was cut short and left this temporary; the helper "
                               "removes it when it next writes or rolls back /{}, or remove it by hand",
                               p, p)});
  }
  return out;
}

}  // namespace rocmtune::journal
