#include "profiles/desired.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "profiles/machine_values.h"
#include "profiles/match.h"

namespace rocmtune::profiles {
namespace {

constexpr std::string_view kAmdttmSource =
    "ROCm docs how-to/system-optimization/mi300a.rst (amdttm); github.com/ROCm/ROCm/issues/5595";

bool Asked(const std::vector<std::string>& with_optional, const std::string& id) {
  return std::find(with_optional.begin(), with_optional.end(), id) != with_optional.end();
}

}  // namespace

std::vector<ItemPlan> EvaluateItems(const Profile& resolved, const sys::Root& root, const detect::Inventory& inventory,
                                    const std::vector<std::string>& with_optional) {
  std::vector<ItemPlan> out;
  std::map<std::string, size_t> last_for_key;  // key text -> index in `out` of the item that applies
  for (const Item& item : resolved.items) {
    ItemPlan p;
    p.item = &item;
    if (item.key) p.key = TtmKeyForRoot(*item.key, root);
    MatchResult m = MatchItem(item, inventory);
    if (item.optional && !Asked(with_optional, item.id)) {
      p.reason = fmt::format("optional; add --with {}", item.id);
    } else if (!m.matches) {
      p.reason = m.reason;
    } else {
      p.verdict = Verdict::kApplies;
      p.reason = item.optional ? fmt::format("asked for with --with {}; {}", item.id, m.reason) : m.reason;
      if (item.value) {
        auto value = ExpandValue(*item.value, root);
        if (value) {
          p.value = std::move(*value);
        } else {
          // Nothing to raise on a small machine is not a failure; an unknown machine is.
          p.verdict = value.error().code == ErrorCode::kUnsupported ? Verdict::kSkipped : Verdict::kRefused;
          p.reason = value.error().message;
        }
      }
    }
    if (p.key && p.verdict != Verdict::kSkipped) {
      // Alternatives on one key (rdna2-consumer-compat's override / no override): the last wins.
      auto [it, fresh] = last_for_key.try_emplace(p.key->Text(), out.size());
      if (!fresh) {
        ItemPlan& earlier = out[it->second];
        earlier.verdict = Verdict::kSkipped;
        earlier.reason = fmt::format("superseded by item '{}' on the same key", item.id);
        earlier.value.reset();
        it->second = out.size();
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<void> CheckWithOptional(const Profile& resolved, const std::vector<std::string>& with_optional) {
  for (const std::string& id : with_optional) {
    auto it = std::find_if(resolved.items.begin(), resolved.items.end(), [&](const Item& i) { return i.id == id; });
    if (it == resolved.items.end()) {
      std::string optional;
      for (const Item& i : resolved.items)
        if (i.optional) optional += (optional.empty() ? "" : ", ") + i.id;
      return Fail(ErrorCode::kInvalidArgument, fmt::format("profile '{}' has no item '{}' (optional items: {})",
                                                           resolved.name, id, optional.empty() ? "none" : optional));
    }
    if (!it->optional)
      return Fail(
          ErrorCode::kInvalidArgument,
          fmt::format("item '{}' of profile '{}' is not optional: it applies without --with", id, resolved.name));
  }
  return {};
}

Result<Desired> DesiredState(const Profile& resolved, const sys::Root& root, const detect::Inventory& inventory,
                             const std::vector<std::string>& with_optional) {
  if (auto ok = CheckWithOptional(resolved, with_optional); !ok) return tl::unexpected(ok.error());
  Desired d;
  d.reset = resolved.reset;
  for (ItemPlan& p : EvaluateItems(resolved, root, inventory, with_optional)) {
    const Item& item = *p.item;
    if (p.verdict == Verdict::kSkipped) {
      d.skipped.push_back(fmt::format("{}: {}", item.id, p.reason));
      continue;
    }
    std::string key_text = p.key ? p.key->Text() : "";
    if (p.verdict == Verdict::kRefused) {
      d.refused.push_back({key_text, fmt::format("item '{}': {}", item.id, p.reason), item.source});
      continue;
    }
    if (p.key && item.key && !(*p.key == *item.key))
      d.notes.push_back({key_text,
                         fmt::format("amdgpu-dkms's amdttm module is present and amdgpu uses it instead of ttm: {} is "
                                     "set as {}",
                                     item.key->Text(), key_text),
                         std::string(kAmdttmSource)});
    switch (item.action) {
      case Action::kSet: d.request.set.push_back({*p.key, *p.value}); break;
      case Action::kUnset: d.request.unset.push_back(*p.key); break;
      case Action::kNote: d.notes.push_back({"", item.why, item.source}); break;
    }
  }
  return d;
}

}  // namespace rocmtune::profiles
