#include "knowledge/catalog.h"

#include <algorithm>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rocmtune::knowledge {
namespace {

using ::testing::HasSubstr;

const ModuleParam& Get(std::string_view key) {
  size_t dot = key.find('.');
  const ModuleParam* p = Catalog::Builtin().Find(key.substr(0, dot), key.substr(dot + 1));
  if (!p) throw std::runtime_error("no catalog entry " + std::string(key));
  return *p;
}

TEST(CatalogTest, BuiltinParsesAndEveryEntryHasASource) {
  const Catalog& catalog = Catalog::Builtin();
  EXPECT_EQ(catalog.params().size(), 117u);  // every row of the parameter table (data/PROVENANCE.md)
  std::set<std::string> keys;
  for (const ModuleParam& p : catalog.params()) {
    EXPECT_TRUE(keys.insert(p.Key()).second) << p.Key() << " twice";
    EXPECT_FALSE(p.source.empty()) << p.Key();
    EXPECT_EQ(p.takes_effect, "module-load") << p.Key();
    EXPECT_FALSE(p.since.empty()) << p.Key();
    for (int64_t v : p.values) {
      EXPECT_GE(v, p.min.value_or(v)) << p.Key();
      EXPECT_LE(v, p.max.value_or(v)) << p.Key();
    }
  }
}

TEST(CatalogTest, CuratedParametersCarryAnExplanation) {
  for (std::string_view key : {"amdgpu.noretry",
                               "amdgpu.mtype_local",
                               "amdgpu.gttsize",
                               "amdgpu.vm_update_mode",
                               "amdgpu.ppfeaturemask",
                               "amdgpu.sg_display",
                               "amdgpu.runpm",
                               "amdgpu.cwsr_enable",
                               "amdgpu.gpu_recovery",
                               "amdgpu.reset_method",
                               "amdgpu.lockup_timeout",
                               "amdgpu.mes",
                               "amdgpu.sched_policy",
                               "amdgpu.hws_max_conc_proc",
                               "amdgpu.aspm",
                               "amdgpu.pcie_gen_cap",
                               "amdgpu.pcie_lane_cap",
                               "amdgpu.user_partt_mode",
                               "amdgpu.dcdebugmask",
                               "amdgpu.dcfeaturemask",
                               "amdgpu.si_support",
                               "amdgpu.cik_support",
                               "amdgpu.gartsize",
                               "amdgpu.vramlimit",
                               "amdgpu.svm_default_granularity",
                               "amdgpu.no_system_mem_limit",
                               "ttm.pages_limit",
                               "ttm.page_pool_size",
                               "ttm.dma32_pages_limit"}) {
    const ModuleParam& p = Get(key);
    EXPECT_TRUE(p.note && p.note->size() > 40) << key;
    EXPECT_NE(p.source.find("drivers/gpu/drm/"), std::string::npos) << key << ": " << p.source;
  }
}

TEST(CatalogTest, DefaultsAreWhatSysfsShows) {
  // A default validated against its own entry must come back unchanged: that is the form
  // sysfs prints (hexint "0xfff7bfff", bool "N", uint decimal).
  const std::set<std::string> not_writable = {
      "amdgpu.user_partt_mode",  // auto (-2) reads 4294967294 and cannot be written back
      "amdgpu.backlight",        // bint: parsed as a bool, so the -1 default cannot be written
      "amdgpu.lockup_timeout",   // empty string
      "amdgpu.disable_cu",      "amdgpu.virtual_display",  // charp unset: "(null)"
  };
  for (const ModuleParam& p : Catalog::Builtin().params()) {
    auto canonical = ValidateValue(p, p.default_value);
    if (not_writable.count(p.Key())) {
      EXPECT_FALSE(canonical) << p.Key();
      continue;
    }
    ASSERT_TRUE(canonical) << p.Key() << " default '" << p.default_value << "': " << canonical.error().message;
    EXPECT_EQ(*canonical, p.default_value) << p.Key();
  }
  EXPECT_EQ(Get("amdgpu.ppfeaturemask").default_value, "0xfff7bfff");
  EXPECT_EQ(Get("amdgpu.no_system_mem_limit").default_value, "N");
  EXPECT_EQ(Get("amdgpu.gartsize").default_value, "4294967295");
}

TEST(CatalogTest, KnownFactsHold) {
  const ModuleParam& noretry = Get("amdgpu.noretry");
  EXPECT_EQ(noretry.type, ParamType::kInt);
  EXPECT_EQ(noretry.default_value, "-1");
  EXPECT_EQ(noretry.min, -1);
  EXPECT_EQ(noretry.max, 1);
  EXPECT_EQ(noretry.effective_rule, "noretry-by-gc");
  EXPECT_FALSE(noretry.runtime_writable);  // 0644, but read only at device init
  EXPECT_TRUE(noretry.affects_gc.empty());

  const ModuleParam& mtype = Get("amdgpu.mtype_local");
  EXPECT_TRUE(mtype.taints);
  EXPECT_EQ(mtype.affects_gc, (std::vector<std::string>{"9.4.3", "9.4.4", "9.5.0", "12.1.0"}));
  EXPECT_EQ(mtype.effective_rule, "mtype-local-by-gc");
  EXPECT_EQ(mtype.since, "6.5");

  EXPECT_EQ(Get("amdgpu.gttsize").deprecated_by, "ttm.pages_limit");
  EXPECT_EQ(Get("amdgpu.gttsize").effective_rule, "gttsize-follows-ttm");
  EXPECT_EQ(Get("amdgpu.vm_update_mode").effective_rule, "vm-update-mode-by-large-bar");
  EXPECT_EQ(Get("ttm.pages_limit").effective_rule, "ttm-half-of-ram");
  EXPECT_TRUE(Get("amdgpu.sg_display").affects_apu_only);
  EXPECT_EQ(Get("amdgpu.mes").removed, "2026 drm-next");
  EXPECT_EQ(Get("amdgpu.cwsr_enable").config_dependency, "CONFIG_HSA_AMD");
  EXPECT_EQ(Get("amdgpu.user_partt_mode").type, ParamType::kUint);
  EXPECT_TRUE(Get("amdgpu.no_system_mem_limit").runtime_writable);  // checked on every KFD allocation
  EXPECT_FALSE(Get("amdgpu.aspm").taints);
  for (std::string_view key : {"amdgpu.gpu_recovery", "amdgpu.reset_method", "amdgpu.sched_policy"})
    EXPECT_TRUE(Get(key).taints) << key;
}

TEST(CatalogTest, FindAndSuggest) {
  const Catalog& c = Catalog::Builtin();
  const ModuleParam* amdttm = c.Find("amdttm", "pages_limit");
  ASSERT_NE(amdttm, nullptr);
  EXPECT_EQ(amdttm, c.Find("ttm", "pages_limit"));
  EXPECT_EQ(amdttm->module, "ttm");
  EXPECT_EQ(c.Find("amdgpu", "gtt_size"), nullptr);
  EXPECT_EQ(c.Find("amdgpu", "pages_limit"), nullptr);  // module matters
  EXPECT_EQ(c.Find("radeon", "noretry"), nullptr);

  auto gtt = c.Suggest("amdgpu", "gtt_size");
  ASSERT_FALSE(gtt.empty());
  EXPECT_EQ(gtt.front()->name, "gttsize");
  EXPECT_LE(gtt.size(), 3u);
  auto swapped = c.Suggest("amdgpu", "noretyr");
  ASSERT_FALSE(swapped.empty());
  EXPECT_EQ(swapped.front()->name, "noretry");
  auto mtype = c.Suggest("amdgpu", "mtypelocal");
  ASSERT_FALSE(mtype.empty());
  EXPECT_EQ(mtype.front()->name, "mtype_local");
  auto ttm = c.Suggest("amdttm", "page_limit");
  ASSERT_FALSE(ttm.empty());
  EXPECT_EQ(ttm.front()->Key(), "ttm.pages_limit");
  EXPECT_TRUE(c.Suggest("amdgpu", "completely_unrelated_name").empty());
  EXPECT_TRUE(c.Suggest("amdgpu", std::string(100000, 'n')).empty());
  EXPECT_TRUE(c.Suggest("ttm", "gttsize").empty());  // amdgpu's names are not offered for ttm
}

TEST(CatalogParseTest, RefusesBrokenEntries) {
  const std::string ok =
      "[[param]]\nmodule = \"amdgpu\"\nname = \"x\"\ntype = \"int\"\ndefault = \"0\"\n"
      "takes_effect = \"module-load\"\nsince = \"6.1\"\nsource = \"s\"\n";
  ASSERT_TRUE(Catalog::Parse(ok, "t")) << Catalog::Parse(ok, "t").error().message;
  struct Case {
    std::string text, why;
  } cases[] = {
      {ok + ok, "listed twice"},
      {"[[param]]\nmodule = \"amdgpu\"\nname = \"x\"\ntype = \"int\"\ndefault = \"0\"\ntakes_effect = \"m\"\nsince = "
       "\"1\"\n",
       "no source"},
      {ok + "min = 2\nmax = 1\n", "min > max"},
      {ok + "min = 0\nmax = 1\nvalues = [0, 5]\n", "outside min..max"},
      {ok + "colour = \"red\"\n", "unknown key"},
      {"[[param]]\nmodule = \"radeon\"\nname = \"x\"\ntype = \"int\"\ndefault = \"0\"\n", "radeon"},
      {"[[param]]\nmodule = \"amdgpu\"\nname = \"x\"\ntype = \"float\"\ndefault = \"0\"\n", "type"},
      {"[[param]]\nmodule = \"amdgpu\"\nname = \"X;\"\ntype = \"int\"\ndefault = \"0\"\n", "name"},
      {"param = 1\n", "'param' must be an array of tables ([[param]]), not an integer"},
      {"# nothing\n", "no [[param]]"},
      {"[[param]\n", "t:"},
  };
  for (const Case& c : cases) {
    auto parsed = Catalog::Parse(c.text, "t");
    ASSERT_FALSE(parsed) << c.why;
    EXPECT_NE(parsed.error().message.find(c.why), std::string::npos) << parsed.error().message;
  }
}

TEST(ValidateValueTest, AcceptsGoodValuesInTheFormSysfsShows) {
  struct Case {
    std::string_view key, typed, canonical;
  } cases[] = {
      {"amdgpu.noretry", "-1", "-1"},
      {"amdgpu.noretry", "0", "0"},
      {"amdgpu.noretry", "1", "1"},
      {"amdgpu.mtype_local", "2", "2"},
      {"amdgpu.runpm", "-2", "-2"},
      {"amdgpu.vm_update_mode", "3", "3"},
      {"amdgpu.gttsize", "8192", "8192"},
      {"amdgpu.hws_max_conc_proc", "-2147483648", "-2147483648"},  // int limits
      {"amdgpu.hws_max_conc_proc", "2147483647", "2147483647"},
      {"amdgpu.ppfeaturemask", "0xFFF7BFFF", "0xfff7bfff"},
      {"amdgpu.ppfeaturemask", "0xfff7ffff", "0xfff7ffff"},
      {"amdgpu.ppfeaturemask", "4294426623", "0xfff7bfff"},  // decimal is fine for hexint
      {"amdgpu.ppfeaturemask", "0x4000", "0x004000"},        // "%#08x"
      {"amdgpu.ppfeaturemask", "0x0000000000ff", "0x0000ff"},
      {"amdgpu.dcdebugmask", "0x10", "16"},  // uint shows decimal
      {"amdgpu.dcdebugmask", "0X10", "16"},
      {"amdgpu.user_partt_mode", "4", "4"},
      {"amdgpu.user_partt_mode", "0x4", "4"},
      {"amdgpu.svm_default_granularity", "27", "27"},
      {"amdgpu.cg_mask", "0xffffffffffffffff", "18446744073709551615"},
      {"ttm.pages_limit", "31457280", "31457280"},
      {"ttm.pages_limit", "18446744073709551615", "18446744073709551615"},
      {"amdgpu.no_system_mem_limit", "1", "Y"},
      {"amdgpu.no_system_mem_limit", "y", "Y"},
      {"amdgpu.no_system_mem_limit", "N", "N"},
      {"amdgpu.no_system_mem_limit", "0", "N"},
      {"amdgpu.backlight", "Y", "1"},  // bint: parsed as bool, shown as int
      {"amdgpu.backlight", "0", "0"},
      {"amdgpu.lockup_timeout", "10000,60000,10000,10000", "10000,60000,10000,10000"},
      {"amdgpu.lockup_timeout", "-1", "-1"},
      {"amdgpu.lockup_timeout", "10000", "10000"},
      {"amdgpu.lockup_timeout", "0,60000", "0,60000"},
      {"amdgpu.lockup_timeout", "2000,-1,0,10000", "2000,-1,0,10000"},
      {"amdgpu.disable_cu", "0.0.1,0.1.3", "0.0.1,0.1.3"},
      {"amdgpu.virtual_display", "0000:03:00.0,1", "0000:03:00.0,1"},
  };
  const std::string longest(255, '1');
  EXPECT_EQ(ValidateValue(Get("amdgpu.disable_cu"), longest), longest);
  for (const Case& c : cases) {
    auto result = ValidateValue(Get(c.key), c.typed);
    ASSERT_TRUE(result) << c.key << "=" << c.typed << ": " << result.error().message;
    EXPECT_EQ(*result, c.canonical) << c.key << "=" << c.typed;
  }
}

// A lockup_timeout the kernel cannot read keeps amdgpu from initializing the GPU; the refusal says
// what the field is and what the kernel takes.
TEST(ValidateValueTest, LockupTimeoutRefusalNamesTheFieldAndTheGrammar) {
  auto bad = ValidateValue(Get("amdgpu.lockup_timeout"), "10000,abc");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("'abc', which is not a decimal integer (the GPU would not initialize)"));
  EXPECT_THAT(bad.error().message, HasSubstr("GFX,Compute,SDMA,Video"));
  auto nul = ValidateValue(Get("amdgpu.lockup_timeout"), std::string("2000\0", 5));
  ASSERT_FALSE(nul);
  EXPECT_THAT(nul.error().message, HasSubstr("NUL byte"));
  auto fifth = ValidateValue(Get("amdgpu.lockup_timeout"), "1,2,3,4,5");
  ASSERT_FALSE(fifth);
  EXPECT_THAT(fifth.error().message, HasSubstr("more than four fields"));
}

// amdgpu_device_check_arguments() takes -1 (auto) and 4..9; anything else it replaces with -1
// ("valid range is between 4 and 9"), so a setting of 99 or 3 would silently do nothing.
TEST(ValidateValueTest, VmFragmentSizeTakesTheKernelsRange) {
  for (std::string_view ok : {"-1", "4", "5", "9"}) {
    auto v = ValidateValue(Get("amdgpu.vm_fragment_size"), ok);
    ASSERT_TRUE(v) << ok << ": " << v.error().message;
    EXPECT_EQ(*v, ok);
  }
  for (std::string_view bad : {"99", "10", "3", "0", "-2"}) {
    auto v = ValidateValue(Get("amdgpu.vm_fragment_size"), bad);
    ASSERT_FALSE(v) << bad;
    EXPECT_NE(v.error().message.find("9 (2 MiB)"), std::string::npos) << v.error().message;
  }
}

TEST(ValidateValueTest, MessagesSayWhatIsAccepted) {
  auto noretry = ValidateValue(Get("amdgpu.noretry"), "2");
  ASSERT_FALSE(noretry);
  EXPECT_NE(noretry.error().message.find("1 (retry disabled)"), std::string::npos) << noretry.error().message;
  auto partt = ValidateValue(Get("amdgpu.user_partt_mode"), "-2");
  ASSERT_FALSE(partt);
  EXPECT_NE(partt.error().message.find("unsigned"), std::string::npos) << partt.error().message;
  auto boolean = ValidateValue(Get("amdgpu.no_system_mem_limit"), "true");
  ASSERT_FALSE(boolean);
  EXPECT_NE(boolean.error().message.find("Y or N"), std::string::npos) << boolean.error().message;
  auto hostile = ValidateValue(Get("amdgpu.noretry"), "1\n;reboot");
  ASSERT_FALSE(hostile);
  EXPECT_EQ(hostile.error().message.find(";reboot"), std::string::npos) << "hostile input is not echoed";
}

struct Hostile {
  std::string key;
  std::string value;
  std::string why;  // why the value must be refused
};

// gtest prints this instead of the struct's bytes.
void PrintTo(const Hostile& h, std::ostream* os) { *os << h.key << ": " << h.why; }

class ValidateValueRefusalTest : public ::testing::TestWithParam<Hostile> {};

TEST_P(ValidateValueRefusalTest, Refused) {
  const Hostile& h = GetParam();
  auto result = ValidateValue(Get(h.key), h.value);
  ASSERT_FALSE(result) << h.key << " accepted '" << h.value << "' as '" << *result << "' but: " << h.why;
  const std::string& message = result.error().message;
  EXPECT_NE(message.find("expected"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line: " << message;
  EXPECT_EQ(message.find('\0'), std::string::npos);
  EXPECT_LT(message.size(), 600u) << "message must not echo huge input";
}

const std::string kLong5000(5000, 'a');
const std::string kLong256(256, '1');

const Hostile kHostile[] = {
    // Bytes that break a modprobe.d line or a shell
    {"amdgpu.noretry", "", "empty: 'noretry=' is not a value"},
    {"amdgpu.noretry", "1\n", "trailing newline ends the options line"},
    {"amdgpu.noretry", "\n1", "leading newline ends the options line"},
    {"amdgpu.noretry", "1\r", "carriage return"},
    {"amdgpu.noretry", std::string{'1', '\0', '1'}, "NUL in the middle truncates C strings"},
    {"amdgpu.noretry", ";rm -rf /", "shell command"},
    {"amdgpu.noretry", "1;rm -rf /", "value followed by a shell command"},
    {"amdgpu.noretry", "$(id)", "command substitution"},
    {"amdgpu.noretry", "`id`", "backtick command substitution"},
    {"amdgpu.noretry", "1 2", "space starts a second option"},
    {"amdgpu.noretry", " 1", "leading space"},
    {"amdgpu.noretry", "1 ", "trailing space"},
    {"amdgpu.noretry", "\t1", "tab"},
    {"amdgpu.noretry", "'1'", "single quotes"},
    {"amdgpu.noretry", "\"1\"", "double quotes"},
    {"amdgpu.noretry", "\x1b[31m1", "terminal escape sequence"},
    {"amdgpu.noretry", "1\x7f", "DEL control character"},
    {"amdgpu.noretry", "../../etc", "path traversal is not a number"},
    {"amdgpu.noretry", "{1}", "brace"},
    {"amdgpu.noretry", "1=1", "second '=' in the option"},
    // Numbers the kernel would misread or that are not numbers
    {"amdgpu.noretry", "2", "out of range -1..1"},
    {"amdgpu.noretry", "-2", "out of range -1..1"},
    {"amdgpu.noretry", "+-1", "two signs"},
    {"amdgpu.noretry", "+1", "explicit plus sign"},
    {"amdgpu.noretry", "--1", "double minus"},
    {"amdgpu.noretry", "-", "sign without digits"},
    {"amdgpu.noretry", "-0", "negative zero"},
    {"amdgpu.noretry", "0x1", "hex for a signed int"},
    {"amdgpu.noretry", "1.0", "not an integer"},
    {"amdgpu.noretry", "1,0", "list for a single int"},
    {"amdgpu.noretry", "\xd9\xa1", "Arabic-Indic digit one (U+0661)"},
    {"amdgpu.noretry", "\xef\xbc\x91", "fullwidth digit one (U+FF11)"},
    {"amdgpu.noretry",
     "\xe2\x88\x92"
     "1",
     "Unicode minus sign (U+2212)"},
    {"amdgpu.cwsr_enable", "01", "leading zero: kernel reads octal"},
    {"amdgpu.pcie_gen_cap", "08", "leading zero: invalid octal for the kernel"},
    {"amdgpu.gttsize", "1e3", "scientific notation"},
    {"amdgpu.gttsize", "1_000", "digit separator"},
    {"amdgpu.gttsize", "0b1", "binary literal"},
    {"amdgpu.gttsize", "inf", "not a number"},
    {"amdgpu.gttsize", "NaN", "not a number"},
    {"amdgpu.hws_max_conc_proc", "99999999999999999999", "overflows 64 bits"},
    {"amdgpu.hws_max_conc_proc", "2147483648", "overflows int"},
    {"amdgpu.hws_max_conc_proc", "-2147483649", "underflows int"},
    {"amdgpu.hws_max_conc_proc", "-0x1", "signed hex"},
    {"amdgpu.user_partt_mode", "-2", "uint: kstrtouint refuses negatives (auto = leave unset)"},
    {"amdgpu.user_partt_mode", "5", "no partition mode 5"},
    {"amdgpu.user_partt_mode", "4294967294", "auto is not a mode to write"},
    {"amdgpu.dcdebugmask", "4294967296", "overflows uint"},
    {"amdgpu.dcdebugmask", "-1", "negative for uint"},
    {"amdgpu.svm_default_granularity", "28", "above KFD's 0x1B"},
    {"amdgpu.ppfeaturemask", "0x", "0x without digits"},
    {"amdgpu.ppfeaturemask", "0x100000000", "overflows hexint (32 bits)"},
    {"amdgpu.ppfeaturemask", "0xfff7bfffg", "not a hex digit"},
    {"amdgpu.ppfeaturemask", "0x-1", "sign after 0x"},
    {"amdgpu.ppfeaturemask", "fff7bfff", "hex without 0x is decimal garbage to the kernel"},
    {"amdgpu.ppfeaturemask", "0xFFF7BFFF\n", "trailing newline"},
    {"amdgpu.cg_mask", "18446744073709551616", "overflows ullong"},
    {"ttm.pages_limit", "-1", "negative for ulong"},
    {"ttm.pages_limit", "1GiB", "units are pages, no suffix"},
    // Booleans
    {"amdgpu.no_system_mem_limit", "true", "kernel spelling aside, only Y/N/1/0"},
    {"amdgpu.no_system_mem_limit", "yes", "only the first letter would count in the kernel"},
    {"amdgpu.no_system_mem_limit", "2", "not a boolean"},
    {"amdgpu.no_system_mem_limit", "YY", "not a boolean"},
    {"amdgpu.no_system_mem_limit", "-1", "not a boolean"},
    {"amdgpu.no_system_mem_limit", "Y;reboot", "boolean followed by a command"},
    {"amdgpu.backlight", "-1", "bint is parsed as a bool: -1 cannot be written"},
    // Strings
    {"amdgpu.disable_cu", "../../etc", "path traversal"},
    {"amdgpu.disable_cu", kLong5000, "over 4096 bytes"},
    {"amdgpu.lockup_timeout", kLong256, "256 characters overflow the kernel's 256-byte buffer with its NUL"},
    {"amdgpu.lockup_timeout", "1|2", "pipe"},
    {"amdgpu.lockup_timeout", "1&2", "background operator"},
    {"amdgpu.lockup_timeout", "1>/etc/x", "redirection"},
    {"amdgpu.lockup_timeout", "$HOME", "variable expansion"},
    {"amdgpu.lockup_timeout", "10000\\n", "backslash"},
    // lockup_timeout's fields: a field kstrtol cannot read keeps the GPU from initializing
    {"amdgpu.lockup_timeout", "abc", "not a number: amdgpu_device_init fails"},
    {"amdgpu.lockup_timeout", "10s", "unit suffix"},
    {"amdgpu.lockup_timeout", "1e4", "exponent"},
    {"amdgpu.lockup_timeout", "+5000", "plus sign"},
    {"amdgpu.lockup_timeout", "0x2710", "hex field"},
    {"amdgpu.lockup_timeout", "010", "octal to kstrtol base 0"},
    {"amdgpu.lockup_timeout", "-0", "minus zero"},
    {"amdgpu.lockup_timeout", "-", "sign without digits"},
    {"amdgpu.lockup_timeout", "10000,,10000", "empty field: the kernel stops there"},
    {"amdgpu.lockup_timeout", ",10000", "leading comma"},
    {"amdgpu.lockup_timeout", "10000,", "trailing comma"},
    {"amdgpu.lockup_timeout", "1,2,3,4,5", "a fifth field the kernel ignores"},
    {"amdgpu.lockup_timeout", "1234567890123456789", "overflows long"},
    {"amdgpu.lockup_timeout",
     std::string("100\0"
                 "00",
                 6),
     "NUL byte"},
    {"amdgpu.lockup_timeout", "10000;60000", "';' separator"},
    {"amdgpu.disable_cu", "a=b", "'=' inside a value"},
    {"amdgpu.disable_cu", "*", "glob"},
    {"amdgpu.disable_cu", "~root", "tilde expansion"},
    {"amdgpu.disable_cu", "!!", "history expansion"},
    {"amdgpu.disable_cu", "a b", "space"},
    {"amdgpu.disable_cu", "caf\xc3\xa9", "non-ASCII letter"},
    {"amdgpu.virtual_display", "0000:03:00.0,1;0000:04:00.0,1", "';' separator is a shell metacharacter"},
};

std::string RowName(const ::testing::TestParamInfo<Hostile>& info) {
  std::string name = std::to_string(info.index) + "_";
  for (char c : info.param.why) {
    if (name.size() > 48) break;
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Hostile, ValidateValueRefusalTest, ::testing::ValuesIn(kHostile), RowName);

}  // namespace
}  // namespace rocmtune::knowledge
