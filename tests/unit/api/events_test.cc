// The journal entries' contents (api/events.h) and the catalog that explains them: the ids the
// code sends are the ids catalog/rocmtune.catalog defines, so neither can drift from the other.
#include "api/events.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "util/text.h"

namespace rocmtune {
namespace {

std::multimap<std::string, std::string> Fields(const api::Event& e) {
  std::multimap<std::string, std::string> out;
  for (const std::string& f : api::JournalFields(e)) {
    size_t eq = f.find('=');
    EXPECT_NE(eq, std::string::npos) << f;
    out.emplace(f.substr(0, eq), f.substr(eq + 1));
  }
  return out;
}

std::string One(const std::multimap<std::string, std::string>& fields, const std::string& name) {
  EXPECT_EQ(fields.count(name), 1u) << name;
  auto it = fields.find(name);
  return it == fields.end() ? "" : it->second;
}

TEST(ApiEventsTest, EveryKindHasItsOwnIdNameAndPriority) {
  std::set<std::string_view> ids, names;
  size_t index = 0;
  for (const api::EventKindInfo& info : api::EventKinds()) {
    EXPECT_EQ(static_cast<size_t>(info.kind), index++);
    EXPECT_EQ(&api::Info(info.kind), &info);
    EXPECT_EQ(info.message_id.size(), 32u) << info.name;
    EXPECT_TRUE(std::all_of(info.message_id.begin(), info.message_id.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    })) << info.message_id;
    EXPECT_TRUE(info.priority >= 2 && info.priority <= 6) << info.name;
    ids.insert(info.message_id);
    names.insert(info.name);
  }
  EXPECT_EQ(index, 13u);  // 8 change kinds, 5 trial steps
  EXPECT_EQ(ids.size(), index);
  EXPECT_EQ(names.size(), index);
}

// journalctl's own parser is exercised by tests/integration/journald_test.sh; this reads the file the
// way its format is defined (man:sd-journal(3) "Catalog"): "-- ID" opens an entry, headers follow.
TEST(ApiEventsTest, TheCatalogExplainsEveryKindTheCodeLogs) {
  std::ifstream in(ROCMTUNE_CATALOG_FILE);
  ASSERT_TRUE(in) << ROCMTUNE_CATALOG_FILE;
  std::map<std::string, std::set<std::string>> headers;  // id -> header names
  std::string line, id;
  bool in_headers = false;
  while (std::getline(in, line)) {
    if (line.rfind("-- ", 0) == 0) {
      id = line.substr(3);
      EXPECT_FALSE(headers.count(id)) << "defined twice: " << id;
      headers[id];
      in_headers = true;
    } else if (line.empty()) {
      in_headers = false;
    } else if (in_headers && line.find(": ") != std::string::npos) {
      headers[id].insert(line.substr(0, line.find(": ")));
      if (line.rfind("Defined-By: ", 0) == 0) {
        EXPECT_EQ(line, "Defined-By: rocmtune");
      }
    }
  }
  std::set<std::string> code;
  for (const api::EventKindInfo& info : api::EventKinds()) code.insert(std::string(info.message_id));
  std::set<std::string> catalog;
  for (const auto& [entry, names] : headers) {
    catalog.insert(entry);
    for (const char* h : {"Subject", "Defined-By", "Support", "Documentation"})
      EXPECT_TRUE(names.count(h)) << entry << " has no " << h;
  }
  EXPECT_EQ(catalog, code);
}

TEST(ApiEventsTest, AnEntryCarriesTheChangeInItsOwnFields) {
  api::Event e;
  e.kind = api::EventKind::kApplied;
  e.verb = "apply";
  e.transaction = "12";
  e.profile = "rdna1-safe";
  e.knobs = {"amdgpu.noretry", "sysfs.card0.pp_power_profile_mode",
             "sysfs.0000:03:00.0.power_dpm_force_performance_level"};
  e.cards = {"card0", "0000:03:00.0"};
  e.root = "/srv/image";
  e.caller_uid = 1000;
  auto f = Fields(e);
  EXPECT_EQ(One(f, "MESSAGE_ID"), "31b17bd470574ca58f0e00961cc198c9");
  EXPECT_EQ(One(f, "PRIORITY"), "5");
  EXPECT_EQ(One(f, "SYSLOG_IDENTIFIER"), "rocmtune");
  EXPECT_EQ(One(f, "ROCMTUNE_EVENT"), "applied");
  EXPECT_EQ(One(f, "ROCMTUNE_TRANSACTION"), "12");
  EXPECT_EQ(One(f, "ROCMTUNE_PROFILE"), "rdna1-safe");
  EXPECT_EQ(One(f, "ROCMTUNE_KNOBS"),
            "amdgpu.noretry sysfs.card0.pp_power_profile_mode sysfs.0000:03:00.0.power_dpm_force_performance_level");
  EXPECT_EQ(One(f, "ROCMTUNE_ROOT"), "/srv/image");
  EXPECT_EQ(One(f, "ROCMTUNE_CALLER_UID"), "1000");
  auto cards = f.equal_range("ROCMTUNE_CARD");
  std::vector<std::string> card_values;
  for (auto it = cards.first; it != cards.second; ++it) card_values.push_back(it->second);
  EXPECT_EQ(card_values, (std::vector<std::string>{"card0", "0000:03:00.0"}));
  EXPECT_EQ(One(f, "MESSAGE"), "Applied profile rdna1-safe as transaction 12 (in /srv/image)");
}

TEST(ApiEventsTest, FieldsThatDoNotApplyAreLeftOut) {
  api::Event e;
  e.kind = api::EventKind::kRefused;
  e.verb = "set";
  e.knobs = {"amdgpu.mtype_local"};
  e.reasons = {"amdgpu.mtype_local does nothing here", "second"};
  auto f = Fields(e);
  EXPECT_EQ(One(f, "MESSAGE_ID"), "f969897a3172464b968415ceaccb55c1");
  EXPECT_EQ(One(f, "PRIORITY"), "4");
  for (const char* absent : {"ROCMTUNE_TRANSACTION", "ROCMTUNE_PROFILE", "ROCMTUNE_ROOT", "ROCMTUNE_CALLER_UID",
                             "ROCMTUNE_CARD", "ROCMTUNE_REVERTS"})
    EXPECT_EQ(f.count(absent), 0u) << absent;
  EXPECT_EQ(f.count("ROCMTUNE_REASON"), 2u);
  EXPECT_EQ(One(f, "MESSAGE"), "Refused set amdgpu.mtype_local: amdgpu.mtype_local does nothing here");
}

// A profile name or a quoted file line is the user's: whatever it holds stays inside its own
// field, on one printable line.
TEST(ApiEventsTest, AUserValueCannotAddAFieldOrALine) {
  api::Event e;
  e.kind = api::EventKind::kRefused;
  e.verb = "apply";
  e.profile = "evil\nMESSAGE_ID=00000000000000000000000000000000\nPRIORITY=0";
  e.reasons = {"line one\r\nSYSLOG_IDENTIFIER=sshd\x1b[2J"};
  auto fields = api::JournalFields(e);
  for (const std::string& f : fields) {
    EXPECT_EQ(f.find('\n'), std::string::npos) << f;
    EXPECT_EQ(f.find('\r'), std::string::npos) << f;
    EXPECT_EQ(f.find('\x1b'), std::string::npos) << f;
  }
  auto f = Fields(e);
  EXPECT_EQ(One(f, "MESSAGE_ID"), "f969897a3172464b968415ceaccb55c1");
  EXPECT_EQ(One(f, "PRIORITY"), "4");
  EXPECT_EQ(One(f, "SYSLOG_IDENTIFIER"), "rocmtune");
  EXPECT_EQ(One(f, "ROCMTUNE_PROFILE"), "evil\\x0aMESSAGE_ID=00000000000000000000000000000000\\x0aPRIORITY=0");
}

TEST(ApiEventsTest, LongValuesAndListsAreCapped) {
  api::Event e;
  e.kind = api::EventKind::kApplied;
  e.verb = "apply";
  std::string name;
  for (int i = 0; i < 5000; ++i) name += "\xc3\xa9";  // é: two bytes, never cut in half
  e.profile = name;
  for (int i = 0; i < 100; ++i) {
    e.knobs.push_back("env.V" + std::to_string(i));
    e.cards.push_back("card" + std::to_string(i));
  }
  auto f = Fields(e);
  std::string profile = One(f, "ROCMTUNE_PROFILE");
  EXPECT_LE(profile.size(), 1024u + 3);
  EXPECT_GT(profile.size(), 1000u);
  ASSERT_EQ(profile.substr(profile.size() - 3), "...");
  EXPECT_EQ(text::IncompleteUtf8Tail(profile.substr(0, profile.size() - 3)), 0u);
  EXPECT_NE(One(f, "ROCMTUNE_KNOBS").find("env.V31 ... (100 in all)"), std::string::npos);
  EXPECT_EQ(One(f, "ROCMTUNE_KNOBS").find("env.V32"), std::string::npos);
  EXPECT_EQ(f.count("ROCMTUNE_CARD"), 32u);
  EXPECT_LE(One(f, "MESSAGE").size(), 1024u + 3);
}

TEST(ApiEventsTest, AReappliedEntryNamesTheCardAndTheRootItWasIn) {
  auto live = sys::Root::Open("/");
  ASSERT_TRUE(live) << live.error().message;
  api::Event e = api::ReappliedEvent(*live, "0000:03:00.0", {"sysfs.0000:03:00.0.pp_power_profile_mode"}, "");
  auto f = Fields(e);
  EXPECT_EQ(One(f, "MESSAGE_ID"), "0553c49140e14b7d9ef92c1665faa279");
  EXPECT_EQ(One(f, "ROCMTUNE_CARD"), "0000:03:00.0");
  EXPECT_EQ(f.count("ROCMTUNE_ROOT"), 0u);
  EXPECT_EQ(f.count("ROCMTUNE_TRANSACTION"), 0u);
  auto world = sys::Root::Open(ROCMTUNE_WORLDS_DIR "/rx5700xt");
  ASSERT_TRUE(world) << world.error().message;
  e = api::ReappliedEvent(*world, "card0", {}, "4");
  f = Fields(e);
  EXPECT_EQ(One(f, "ROCMTUNE_ROOT"), world->path());
  EXPECT_EQ(One(f, "ROCMTUNE_TRANSACTION"), "4");
}

}  // namespace
}  // namespace rocmtune
