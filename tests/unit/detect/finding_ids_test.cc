// The finding table (detect/finding_ids.h) is the one list of finding ids: every id has one
// row, the rocmtunectl(1) FINDINGS section lists exactly its rows, and every finding a world's
// golden status shows is one of them with a severity the row allows.
// ROCMTUNE_UPDATE_MAN=1 rewrites the FINDINGS section of man/rocmtunectl.1.scd from the table.
#include "detect/finding_ids.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rocmtune::detect {
namespace {

constexpr std::string_view kSectionStart = "# FINDINGS\n";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string SeverityText(const FindingRow& row) {
  return row.severity == row.most ? std::string(SeverityName(row.severity))
                                  : fmt::format("{} or {}", SeverityName(row.severity), SeverityName(row.most));
}

// The FINDINGS section as the table makes it, up to the next section.
std::string Section() {
  std::string out(kSectionStart);
  out +=
      "\nEvery finding *status*, *doctor*, *check-compute* and *rocmtuned* report has one of these ids\n"
      "(JSON _id_), with its severity; where it depends, the finding's text says why. Known issues add\n"
      "_issue.ID_ findings, one per entry of rocmtune's known-issue base (_ID_ is the entry's id).\n"
      "A problem is a warning or an error; info findings do not count.\n";
  for (const FindingRow& row : FindingTable())
    out += fmt::format("\n*{}* ({})\n\t{}\n", row.name, SeverityText(row), row.text);
  out += "\n";
  return out;
}

std::string ManPagePath() { return std::string(ROCMTUNE_SOURCE_DIR) + "/man/rocmtunectl.1.scd"; }

// [begin, end) of the FINDINGS section in `page`; npos when it has none.
std::pair<size_t, size_t> SectionSpan(const std::string& page) {
  size_t begin = page.find(kSectionStart);
  if (begin == std::string::npos) return {std::string::npos, std::string::npos};
  size_t end = page.find("\n# ", begin + kSectionStart.size());
  return {begin, end == std::string::npos ? page.size() : end + 1};
}

TEST(FindingTable, EveryIdHasOneRow) {
  std::set<std::string_view> names;
  std::set<FindingId> ids;
  for (const FindingRow& row : FindingTable()) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(ids.insert(row.id).second) << row.name;
    EXPECT_EQ(ParseFindingId(row.name), row.id) << row.name;
    EXPECT_EQ(FindingName(row.id), row.name);
    EXPECT_LE(row.severity, row.most) << row.name;
    EXPECT_FALSE(row.text.empty()) << row.name;
    EXPECT_EQ(row.text.find('\n'), std::string_view::npos) << row.name;
  }
  EXPECT_FALSE(ParseFindingId("issue.rdna1-not-supported"));
}

TEST(FindingTable, ManPageListsEveryId) {
  std::string page = ReadAll(ManPagePath());
  ASSERT_FALSE(page.empty()) << ManPagePath();
  auto [begin, end] = SectionSpan(page);
  if (std::getenv("ROCMTUNE_UPDATE_MAN")) {
    if (begin == std::string::npos) {
      begin = end = page.find("# EXIT STATUS\n");
      ASSERT_NE(begin, std::string::npos);
    }
    page.replace(begin, end - begin, Section());
    std::ofstream(ManPagePath()) << page;
    return;
  }
  ASSERT_NE(begin, std::string::npos) << ManPagePath() << " has no FINDINGS section";
  EXPECT_EQ(page.substr(begin, end - begin), Section())
      << "the FINDINGS section differs from detect/finding_ids.cc; ROCMTUNE_UPDATE_MAN=1 rewrites it";
}

// Every producer names its id from the table: each finding of every world's golden status is a
// row (or a known issue), with a severity in the row's range.
TEST(FindingTable, GoldenFindingsAreRows) {
  int worlds = 0;
  for (const auto& dir : std::filesystem::directory_iterator(std::string(ROCMTUNE_SOURCE_DIR) + "/tests/golden")) {
    const std::string world = dir.path().filename();
    std::string text = ReadAll(dir.path() / "status.json");
    if (text.empty()) continue;
    ++worlds;
    auto doc = nlohmann::json::parse(text);
    for (const auto& f : doc.at("findings")) {
      std::string id = f.at("id").get<std::string>();
      if (id.starts_with("issue.")) continue;
      auto parsed = ParseFindingId(id);
      ASSERT_TRUE(parsed) << world << ": " << id << " is not in the finding table";
      const FindingRow& row = RowOf(*parsed);
      std::string severity = f.at("severity").get<std::string>();
      bool in_range = false;
      for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kError})
        if (SeverityName(s) == severity && row.severity <= s && s <= row.most) in_range = true;
      EXPECT_TRUE(in_range) << world << ": " << id << " is " << severity;
    }
  }
  EXPECT_GE(worlds, 10);
}

}  // namespace
}  // namespace rocmtune::detect
