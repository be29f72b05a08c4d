#include "profiles/profile_store.h"

#include <algorithm>

#include <fmt/format.h>

#include "sys/trusted_config.h"
#include "util/suggest.h"

namespace rocmtune::profiles {
namespace {

// Includes nest a level or two in practice; the bound keeps a hostile chain cheap.
constexpr size_t kMaxIncludeDepth = 16;

bool SameKey(const Item& a, const Item& b) { return a.key && b.key && *a.key == *b.key; }

// Appends `batch` (one profile's items) to `out`, dropping earlier items it redefines.
void Merge(std::vector<Item>& out, std::vector<Item> batch) {
  std::erase_if(out, [&](const Item& old) {
    return std::any_of(batch.begin(), batch.end(),
                       [&](const Item& now) { return now.id == old.id || SameKey(now, old); });
  });
  for (Item& item : batch) out.push_back(std::move(item));
}

// ARCHITECTURE.md "Security model": a profile not owned by root is untrusted. An admin profile counts
// only when it and its directory are trusted by sys::CheckTrusted's rule.
constexpr std::string_view kProfileTrust = "an admin profile is trusted only when root owns it";

std::string Chain(const std::vector<std::string>& stack, std::string_view last) {
  std::string out;
  for (const std::string& s : stack) out += s + " -> ";
  return out + std::string(last);
}

}  // namespace

ProfileStore ProfileStore::Load(const sys::Root& root) { return Load(root, BuiltinProfiles()); }

ProfileStore ProfileStore::Load(const sys::Root& root, std::span<const BuiltinProfile> builtins) {
  ProfileStore store;
  for (const BuiltinProfile& b : builtins)
    store.entries_.push_back({std::string(b.name), std::string(kBuiltinOrigin),
                              ParseProfile(b.name, b.text, fmt::format("built-in profile {}", b.name)), false});

  auto names = root.ListDir(kAdminProfileDir);
  if (!names && names.error().code != ErrorCode::kNotFound) store.errors_.push_back(names.error().message);
  Result<void> dir_trusted = names ? sys::CheckTrusted(root, kAdminProfileDir, kProfileTrust) : Result<void>{};
  for (const std::string& file : names ? *names : std::vector<std::string>{}) {
    if (!file.ends_with(".toml") || file.starts_with(".")) continue;  // editor backups, READMEs
    std::string name = file.substr(0, file.size() - 5);
    std::string rel = fmt::format("{}/{}", kAdminProfileDir, file);
    std::string origin = root.Display(rel);
    auto trusted = dir_trusted ? sys::CheckTrusted(root, rel, kProfileTrust) : dir_trusted;
    auto content =
        trusted ? root.ReadFile(rel, kMaxProfileBytes) : Result<std::string>(tl::unexpected(trusted.error()));
    StoreEntry entry{name, origin,
                     content ? ParseProfile(name, *content, origin) : Result<Profile>(tl::unexpected(content.error())),
                     false};
    // `reset` and the rocmtune.reset=1 escape hatch promise "back to stock": keep that true.
    if (entry.profile && name == kStockProfile && !entry.profile->reset)
      entry.profile =
          Fail(ErrorCode::kInvalidData, fmt::format("{}: the {} profile must keep reset = true", origin, name));
    auto it =
        std::find_if(store.entries_.begin(), store.entries_.end(), [&](const StoreEntry& e) { return e.name == name; });
    if (it == store.entries_.end()) {
      store.entries_.push_back(std::move(entry));
    } else {
      entry.overrides_builtin = true;
      *it = std::move(entry);
    }
  }
  std::sort(store.entries_.begin(), store.entries_.end(),
            [](const StoreEntry& a, const StoreEntry& b) { return a.name < b.name; });
  return store;
}

const StoreEntry* ProfileStore::Find(std::string_view name) const {
  for (const StoreEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

Result<ProfileStore::Resolved> ProfileStore::ResolveItems(std::string_view name, std::vector<std::string>& stack,
                                                          Memo& memo) const {
  if (std::find(stack.begin(), stack.end(), name) != stack.end())
    return Fail(ErrorCode::kInvalidData, fmt::format("include cycle: {}", Chain(stack, name)));
  if (stack.size() >= kMaxIncludeDepth)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("includes nest deeper than {}: {}", kMaxIncludeDepth, Chain(stack, name)));
  const StoreEntry* entry = Find(name);
  if (!entry) {
    if (stack.empty()) {
      std::string known;
      std::vector<std::string> names;
      for (const StoreEntry& e : entries_) {
        known += (known.empty() ? "" : ", ") + e.name;
        names.push_back(e.name);
      }
      return Fail(ErrorCode::kNotFound,
                  fmt::format("no profile named '{}' (known: {}).{}", name, known, text::DidYouMean(name, names)));
    }
    return Fail(ErrorCode::kNotFound,
                fmt::format("profile '{}' includes '{}', which does not exist", stack.back(), name));
  }
  if (!entry->profile) {
    std::string msg = entry->profile.error().message;
    if (entry->overrides_builtin) msg += fmt::format(" (this file replaces the built-in profile {})", name);
    if (!stack.empty()) msg = fmt::format("profile '{}' includes '{}': {}", stack.back(), name, msg);
    return Fail(entry->profile.error().code, msg);
  }
  const Profile& p = *entry->profile;
  if (p.reset && !stack.empty())
    return Fail(ErrorCode::kInvalidData,
                fmt::format("profile '{}' includes '{}', a reset profile; resetting cannot be combined with settings",
                            stack.back(), name));
  // A profile resolved before is reused unless its includes would now pass the depth bound
  // (then resolving it again reports where). It cannot be on the stack: those are unfinished.
  if (auto done = memo.find(name); done != memo.end() && stack.size() + done->second.height < kMaxIncludeDepth)
    return done->second;
  stack.push_back(std::string(name));
  Resolved out;
  for (const std::string& inc : p.includes) {
    auto sub = ResolveItems(inc, stack, memo);
    if (!sub) return tl::unexpected(sub.error());
    out.height = std::max(out.height, sub->height + 1);
    Merge(out.items, std::move(sub->items));
  }
  Merge(out.items, p.items);
  stack.pop_back();
  memo.insert_or_assign(std::string(name), out);
  return out;
}

Result<Profile> ProfileStore::Resolve(std::string_view name) const {
  std::vector<std::string> stack;
  Memo memo;
  auto resolved = ResolveItems(name, stack, memo);
  if (!resolved) return tl::unexpected(resolved.error());
  Profile p = *Find(name)->profile;
  p.items = std::move(resolved->items);
  return p;
}

std::vector<Listing> ListProfiles(const ProfileStore& store, const detect::Inventory& inventory) {
  std::vector<Listing> out;
  for (const StoreEntry& e : store.entries()) {
    Listing l{&e, store.Resolve(e.name), {}};
    if (l.resolved) l.match = MatchProfile(*l.resolved, inventory);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace rocmtune::profiles
