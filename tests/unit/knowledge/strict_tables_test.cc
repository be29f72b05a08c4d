// Every shipped data table is read strictly (util/toml_reader.h): one key misspelt in one entry
// of the real file is refused, naming the file, the entry and the key, instead of the fact
// being silently dropped. gpus, gfx_targets, kernel_options and env_vars ignored such a key
// before the one reader.
#include <functional>
#include <string>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "embedded_data.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "knowledge/gfx_targets.h"
#include "knowledge/gpu_table.h"
#include "knowledge/kernel_options.h"
#include "knowledge/known_issues.h"
#include "knowledge/rocm_support.h"

namespace rocmtune::knowledge {
namespace {

using ::testing::HasSubstr;

struct Misspelt {
  std::string text;
  size_t entry = 0;  // which [[array]] entry (from 0) now holds the typo
};

// `key` misspelt as `typo` in the first entry of `array` from `from_entry` on that has it.
Misspelt Misspell(std::string_view text, std::string_view array, std::string_view key, std::string_view typo,
                  size_t from_entry) {
  const std::string header = "\n[[" + std::string(array) + "]]\n";  // at a line start, not in a comment
  const std::string line = "\n" + std::string(key) + " = ";
  size_t pos = 0;
  for (size_t entry = 0;; ++entry) {
    pos = text.find(header, pos);
    if (pos == std::string_view::npos) break;
    const size_t next = text.find("\n[[", pos + header.size());
    const size_t at = text.substr(0, next).find(line, pos);
    if (entry >= from_entry && at != std::string_view::npos) {
      std::string out(text);
      out.replace(at + 1, key.size(), typo);
      return {out, entry};
    }
    pos += header.size();
  }
  ADD_FAILURE() << "no [[" << array << "]] entry from #" << from_entry + 1 << " has " << key;
  return {std::string(text), 0};
}

struct Case {
  const char* name;
  std::string_view text;
  const char* origin;
  const char* array;
  const char* key;
  const char* typo;
  size_t from_entry;
  std::function<std::string(std::string_view, std::string_view)> parse;  // the error message, or ""
  std::function<std::string(size_t)> entry;                              // how entry N is named
};

template <typename T>
std::string ErrorOf(const Result<T>& r) {
  return r ? "" : r.error().message;
}

std::vector<Case> Cases() {
  return {
      {"gpus", embedded::kGpusToml, "data/gpus.toml", "gpu", "family", "famly", 11,
       [](auto text, auto origin) { return ErrorOf(GpuTable::Parse(text, origin)); },
       [](size_t i) {
         return "[[gpu]] #" + std::to_string(i + 1) + " (" + GpuTable::Builtin().models().at(i).product + ")";
       }},
      {"gfx_targets", embedded::kGfxTargetsToml, "data/gfx_targets.toml", "target", "gc_ips", "gc_ip", 2,
       [](auto text, auto origin) { return ErrorOf(GfxTargetTable::Parse(text, origin)); },
       [](size_t i) {
         return "[[target]] #" + std::to_string(i + 1) + " (" + GfxTargetTable::Builtin().targets().at(i).name + ")";
       }},
      {"kernel_options", embedded::kKernelOptionsToml, "data/kernel_options.toml", "option", "values", "value", 1,
       [](auto text, auto origin) { return ErrorOf(KernelOptions::Parse(text, origin)); },
       [](size_t i) {
         return "[[option]] #" + std::to_string(i + 1) + " (" + KernelOptions::Builtin().options().at(i).name + ")";
       }},
      {"env_vars_var", embedded::kEnvVarsToml, "data/env_vars.toml", "var", "description", "descripton", 3,
       [](auto text, auto origin) { return ErrorOf(EnvVars::Parse(text, origin)); },
       [](size_t i) {
         return "[[var]] #" + std::to_string(i + 1) + " (" + EnvVars::Builtin().vars().at(i).name + ")";
       }},
      {"env_vars_not_read", embedded::kEnvVarsToml, "data/env_vars.toml", "not_read", "hint", "hints", 0,
       [](auto text, auto origin) { return ErrorOf(EnvVars::Parse(text, origin)); },
       [](size_t i) {
         return "[[not_read]] #" + std::to_string(i + 1) + " (" + EnvVars::Builtin().not_read().at(i).name + ")";
       }},
      {"env_vars_debug", embedded::kEnvVarsToml, "data/env_vars.toml", "debug", "off", "offf", 0,
       [](auto text, auto origin) { return ErrorOf(EnvVars::Parse(text, origin)); },
       [](size_t i) {
         return "[[debug]] #" + std::to_string(i + 1) + " (" + EnvVars::Builtin().debug().at(i).name + ")";
       }},
      {"catalog", embedded::kCatalogToml, "data/catalog.toml", "param", "runtime_writable", "runtime_writeable", 4,
       [](auto text, auto origin) { return ErrorOf(Catalog::Parse(text, origin)); },
       [](size_t i) {
         return "[[param]] #" + std::to_string(i + 1) + " (" + Catalog::Builtin().params().at(i).Key() + ")";
       }},
      {"known_issues", embedded::kKnownIssuesToml, "data/known_issues.toml", "issue", "title", "titel", 1,
       [](auto text, auto origin) { return ErrorOf(KnownIssues::Parse(text, origin)); },
       [](size_t i) { return "issue '" + KnownIssues::Builtin().issues().at(i).id + "'"; }},
      {"rocm_support", embedded::kRocmSupportToml, "data/rocm_support.toml", "release", "note", "notes", 0,
       [](auto text, auto origin) { return ErrorOf(RocmSupport::Parse(text, origin, GfxTargetTable::Builtin())); },
       [](size_t i) { return "release '" + RocmSupport::Builtin().releases().at(i).version_text + "'"; }},
  };
}

class StrictTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(StrictTableTest, TheShippedFileLoads) {
  const Case& c = GetParam();
  EXPECT_EQ(c.parse(c.text, c.origin), "");
}

TEST_P(StrictTableTest, AMisspeltKeyIsRefusedWithFileAndEntry) {
  const Case& c = GetParam();
  Misspelt m = Misspell(c.text, c.array, c.key, c.typo, c.from_entry);
  const std::string message = c.parse(m.text, c.origin);
  ASSERT_NE(message, "") << "accepted " << c.typo << " in " << c.origin;
  EXPECT_THAT(message, HasSubstr(std::string(c.origin) + ": " + c.entry(m.entry) + ": unknown key '" + c.typo + "'"));
  EXPECT_THAT(message, HasSubstr(std::string("Did you mean ") + c.key));
}

INSTANTIATE_TEST_SUITE_P(Shipped, StrictTableTest, ::testing::ValuesIn(Cases()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// A value of the wrong type is refused the same way, not read as absent.
TEST(StrictTableTest, AWrongTypeIsRefusedWithFileAndEntry) {
  auto gpus = GpuTable::Parse("[[gpu]]\nproduct = \"X\"\npci_ids = [\"0x1\"]\napu = \"no\"\n", "g.toml");
  ASSERT_FALSE(gpus);
  EXPECT_THAT(gpus.error().message, HasSubstr("g.toml: [[gpu]] #1 (X): 'apu' must be true or false, not a string"));
  auto options =
      KernelOptions::Parse("[[option]]\nname = \"iommu\"\nsource = \"s\"\n[option.refuse]\npt = 1\n", "k.toml");
  ASSERT_FALSE(options);
  EXPECT_THAT(options.error().message, HasSubstr("k.toml: [[option]] #1 (iommu): 'refuse.pt' must be a string"));
  auto vars = EnvVars::Parse("[[var]]\nname = \"A\"\ncheck = \"uint\"\n", "e.toml");
  ASSERT_FALSE(vars);
  EXPECT_THAT(vars.error().message, HasSubstr("e.toml: [[var]] #1 (A): 'source' is missing"));
  auto targets = GfxTargetTable::Parse(
      "[[target]]\ngfx_target = \"gfx1030\"\ngfx_target_version = 100300\n"
      "[[targets]]\n",
      "t.toml");
  ASSERT_FALSE(targets);
  EXPECT_THAT(targets.error().message, HasSubstr("t.toml: unknown key 'targets'"));
}

}  // namespace
}  // namespace rocmtune::knowledge
