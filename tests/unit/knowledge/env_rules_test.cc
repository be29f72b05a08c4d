// The grammar of the environment values rocmtune checks, against what the reading library
// accepts (PyTorch c10/core/AllocatorConfig.{h,cpp}, c10/cuda/CUDAAllocatorConfig.cpp), and the
// tables of variables nobody reads and of debugging switches (data/env_vars.toml).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "knowledge/env_vars.h"

namespace rocmtune::knowledge {
namespace {

using ::testing::HasSubstr;

std::string Alloc(std::string_view value) {
  const EnvVar* var = EnvVars::Builtin().Find("PYTORCH_HIP_ALLOC_CONF");
  EXPECT_NE(var, nullptr);
  return var ? CheckEnvGrammar(*var, value) : "no variable";
}

TEST(AllocConfTest, AcceptsWhatPyTorchParses) {
  for (const char* ok : {"max_split_size_mb:512",
                         "max_split_size_mb:21",
                         "garbage_collection_threshold:0.6",
                         "garbage_collection_threshold:0.05",
                         "expandable_segments:True",
                         "expandable_segments:False",
                         "roundup_power2_divisions:4",
                         "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
                         "roundup_power2_divisions:[>:0]",
                         "backend:native",
                         "backend:hipMallocAsync",
                         "backend:cudaMallocAsync",
                         "release_lock_on_hipmalloc:True",
                         "release_lock_on_cudamalloc:False",
                         "max_non_split_rounding_mb:64",
                         "pinned_use_background_threads:True",
                         "pinned_use_hip_host_register:True",
                         "pinned_num_register_threads:8",
                         "max_split_size_mb:128,garbage_collection_threshold:0.6",
                         " max_split_size_mb : 128 , expandable_segments:True",
                         "max_split_size_mb:128,"})
    EXPECT_EQ(Alloc(ok), "") << ok;
}

TEST(AllocConfTest, RefusesWhatPyTorchRejects) {
  struct Case {
    const char* value;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{
           {"garbage_collection_threshold:1.5", "(0.0, 1.0)"},
           {"garbage_collection_threshold:1", "(0.0, 1.0)"},
           {"garbage_collection_threshold:0", "(0.0, 1.0)"},
           {"garbage_collection_threshold:x", "a number"},
           {"expandable_segments:maybe", "True or False"},
           {"expandable_segments:true", "True or False"},
           {"expandable_segments:1", "True or False"},
           {"max_split_size_mb:20", "> 20"},
           {"max_split_size_mb:-1", "> 20"},
           {"max_split_size_mb:big", "> 20"},
           {"max_non_split_rounding_mb:19", ">= 20"},
           {"roundup_power2_divisions:3", "power of 2"},
           {"roundup_power2_divisions:[256:3]", "power of 2"},
           {"roundup_power2_divisions:[100:2]", "power of 2"},
           {"roundup_power2_divisions:[256:2", "]"},
           {"backend:fast", "native"},
           {"pinned_num_register_threads:3", "power of 2"},
           {"pinned_num_register_threads:256", "128"},
           {"max_split_size:512", "not a caching-allocator option"},
           {"max_split_size_mb=512", "not a caching-allocator option"},
           {"max_split_size_mb", "':'"},
           {"max_split_size_mb:", "> 20"},
           {"max_split_size_mb:128;expandable_segments:True", "> 20"},
           {"max_split_size_mb:128 expandable_segments:True", "> 20"},
           {"expandable_segments:True:False", "','"},
       }) {
    std::string why = Alloc(c.value);
    EXPECT_THAT(why, HasSubstr(c.why)) << c.value;
    EXPECT_THAT(why, HasSubstr("PYTORCH_HIP_ALLOC_CONF")) << c.value;
  }
}

// `set` writes values unquoted into a shell script: brackets and '>' are refused there even
// though PyTorch accepts them (an admin's quoted value in /etc/environment is fine).
TEST(AllocConfTest, SetRefusesShellCharactersTheGrammarAccepts) {
  const EnvVar* var = EnvVars::Builtin().Find("PYTORCH_HIP_ALLOC_CONF");
  ASSERT_NE(var, nullptr);
  EXPECT_EQ(CheckEnvGrammar(*var, "roundup_power2_divisions:[>:8]"), "");
  EXPECT_THAT(CheckEnvValue(*var, "roundup_power2_divisions:[>:8]"), HasSubstr("not allowed"));
  EXPECT_THAT(CheckEnvValue(*var, "garbage_collection_threshold:1.5"), HasSubstr("(0.0, 1.0)"));
  EXPECT_EQ(CheckEnvValue(*var, "garbage_collection_threshold:0.8"), "");
}

// Every name PyTorch reads its allocator options from is held to the same grammar.
TEST(AllocConfTest, EveryAllocatorVariableHasTheGrammar) {
  for (const char* name : {"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"}) {
    const EnvVar* var = EnvVars::Builtin().Find(name);
    ASSERT_NE(var, nullptr) << name;
    EXPECT_EQ(var->on_invalid, "fails") << name;
    EXPECT_EQ(CheckEnvGrammar(*var, "expandable_segments:True"), "") << name;
    EXPECT_THAT(CheckEnvGrammar(*var, "expandable_segments:maybe"), HasSubstr(name));
  }
}

TEST(EnvTablesTest, NotReadAndDebugVariables) {
  const EnvVars& vars = EnvVars::Builtin();
  const NotReadVar* split = vars.FindNotRead("PYTORCH_MAX_SPLIT_SIZE_MB");
  ASSERT_NE(split, nullptr);
  EXPECT_THAT(split->hint, HasSubstr("PYTORCH_HIP_ALLOC_CONF=max_split_size_mb:"));
  EXPECT_THAT(split->source, HasSubstr("AllocatorConfig"));
  EXPECT_EQ(vars.FindNotRead("PYTORCH_HIP_ALLOC_CONF"), nullptr);

  const DebugVar* caching = vars.FindDebug("PYTORCH_NO_HIP_MEMORY_CACHING");
  ASSERT_NE(caching, nullptr);
  EXPECT_TRUE(DebugSwitchOn(*caching, "1"));
  EXPECT_FALSE(DebugSwitchOn(*caching, "0"));
  const DebugVar* serialize = vars.FindDebug("AMD_SERIALIZE_KERNEL");
  ASSERT_NE(serialize, nullptr);
  EXPECT_TRUE(DebugSwitchOn(*serialize, "3"));
  EXPECT_FALSE(DebugSwitchOn(*serialize, "0"));
  const DebugVar* sdma = vars.FindDebug("HSA_ENABLE_SDMA");
  ASSERT_NE(sdma, nullptr);
  EXPECT_TRUE(DebugSwitchOn(*sdma, "0"));
  EXPECT_FALSE(DebugSwitchOn(*sdma, "1"));
  for (const char* name :
       {"AMD_SERIALIZE_COPY", "AMD_LOG_LEVEL", "HSAKMT_DEBUG_LEVEL", "HSA_DISABLE_FRAGMENT_ALLOCATOR"})
    EXPECT_NE(vars.FindDebug(name), nullptr) << name;
  EXPECT_EQ(vars.FindDebug("HIP_VISIBLE_DEVICES"), nullptr);
  const DebugVar* winograd = vars.FindDebug("MIOPEN_DEBUG_CONV_WINOGRAD");
  ASSERT_NE(winograd, nullptr);
  EXPECT_TRUE(DebugSwitchOn(*winograd, "0"));
  EXPECT_FALSE(DebugSwitchOn(*winograd, "1")) << "1 leaves the solvers on: the default";
  for (const DebugVar& d : vars.debug()) {
    EXPECT_FALSE(d.cost.empty()) << d.name;
    EXPECT_FALSE(d.hint.empty()) << d.name;
    EXPECT_FALSE(d.source.empty()) << d.name;
  }
}

TEST(EnvTablesTest, NewTablesAreChecked) {
  EXPECT_FALSE(EnvVars::Parse("[[var]]\nname='A'\ncheck='uint'\nsource='s'\n[[not_read]]\nname='B'\n", "t"));
  EXPECT_FALSE(EnvVars::Parse("[[var]]\nname='A'\ncheck='uint'\nsource='s'\n[[debug]]\nname='B'\nsource='s'\n", "t"));
  EXPECT_TRUE(
      EnvVars::Parse("[[var]]\nname='A'\ncheck='uint'\nsource='s'\n[[debug]]\nname='B'\non=['1']\n"
                     "cost='c'\nhint='h'\nsource='s'\n[[not_read]]\nname='C'\nwhy='w'\nhint='h'\nsource='s'\n",
                     "t"));
}

}  // namespace
}  // namespace rocmtune::knowledge
