#include "program/context.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "program/unit_env.h"
#include "test_tree.h"

namespace rocmtune::program {
namespace {

using Env = std::map<std::string, std::optional<std::string>>;

sys::Root OpenTree(const testing::TestTree& tree) {
  auto root = sys::Root::Open(tree.path());
  if (!root) throw std::runtime_error(root.error().message);
  return std::move(*root);
}

std::vector<std::string> Names(const Context& ctx) {
  std::vector<std::string> out;
  for (const knobs::EnvSetting& s : ctx.env) out.push_back(s.name + "=" + s.value.value_or("<computed>"));
  return out;
}

// --- env-file.c's syntax ----------------------------------------------------------------------

TEST(UnitEnvFileTest, ReadsAsEnvFileCDoes) {
  const std::string content =
      "# comment\n"
      "; also a comment\n"
      "A=plain   \n"
      "B=\"double  \"\n"
      "C='single # not a comment'\n"
      "  D = spaced\n"
      "E=\"esc \\\" \\$ \\\\ \\n\"\n"
      "F=line\\\ncontinued\n"
      "G=\"multi\nline\"\n"
      "export H=1\n"
      "9X=bad\n"
      "I\n"
      "J=\n"
      "K=a\"b\"   \n";
  auto parsed = ParseEnvFile(content);
  ASSERT_TRUE(parsed) << parsed.error().message;
  Env got;
  for (const auto& s : *parsed) got[s.name] = s.value;
  Env want = {{"A", "plain"},
              {"B", "double  "},
              {"C", "single # not a comment"},
              {"D", "spaced"},
              {"E", "esc \" $ \\ \\n"},
              {"F", "linecontinued"},
              {"G", "multi\nline"},
              {"J", ""},
              {"K", "a\"b\""}};
  EXPECT_EQ(got, want);  // "export H" and "9X" are no variable names: strv_env_clean drops them
  EXPECT_EQ((*parsed)[0].line, 3);
  EXPECT_EQ((*parsed)[6].name, "G");
  EXPECT_EQ((*parsed)[6].line, 10);  // F took lines 8 and 9
}

TEST(UnitEnvFileTest, StopsAtNulAndRefusesInvalidUtf8) {
  auto parsed = ParseEnvFile(std::string("A=1\nB=2\0C=3\n", 12));
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[1].value, "2");
  auto bad = ParseEnvFile("A=1\nB=\xff\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidData);
}

TEST(UnitEnvironmentWordsTest, SplitsAsConfigParseEnviron) {
  EnvironmentWords w = SplitEnvironmentValue("\"HSA_OVERRIDE_GFX_VERSION=10.3.0\" A=1 B=\"x y\" C=a\\x41 'D=sp  '");
  EXPECT_TRUE(w.complete);
  EXPECT_EQ(w.words, (std::vector<std::string>{"HSA_OVERRIDE_GFX_VERSION=10.3.0", "A=1", "B=x y", "C=aA", "D=sp  "}));
  EnvironmentWords bad = SplitEnvironmentValue("A=1 \"B=2");
  EXPECT_FALSE(bad.complete);
  EXPECT_EQ(bad.words, std::vector<std::string>{"A=1"});
  EXPECT_FALSE(SplitEnvironmentValue("A=\\q").complete);
}

// The real parser: systemd-analyze verify warns "Invalid syntax, ignoring" exactly for the values
// SplitEnvironmentValue finds incomplete.
TEST(UnitEnvironmentWordsTest, AgreesWithSystemdAnalyzeVerify) {
  const char* tool = "/usr/bin/systemd-analyze";
  if (::access(tool, X_OK) != 0) GTEST_SKIP() << "no " << tool << " to compare with (systemd not installed)";
  testing::TestTree tree;
  const std::vector<std::string> values = {"\"A=1 B=2\" C=3", "A=1 \"B=2", "A='x", "A=a\\x41", "A=\\q", "A=\"x\"y B=2"};
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string unit = "t" + std::to_string(i) + ".service";
    tree.Write(unit, "[Service]\nExecStart=/bin/true\nEnvironment=" + values[i] + "\n");
    const std::string cmd = std::string(tool) + " verify --man=no " + tree.Path(unit) + " 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buf[512];
    while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    ::pclose(pipe);
    const bool systemd_invalid = out.find("Invalid syntax") != std::string::npos;
    EXPECT_EQ(!SplitEnvironmentValue(values[i]).complete, systemd_invalid) << values[i] << "\n" << out;
  }
}

TEST(UnitFileTest, DashPrefixDropIns) {
  testing::TestTree t;
  t.Write("usr/lib/systemd/system/rocm-llm@.service", "[Service]\nEnvironment=A=unit\n");
  t.Write("etc/systemd/system/rocm-.service.d/10-all.conf", "[Service]\nEnvironment=A=prefix B=prefix\n");
  t.Write("etc/systemd/system/rocm-llm@.service.d/10-all.conf", "[Service]\nEnvironment=A=template\n");
  t.Write("etc/systemd/system/rocm-llm@0.service.d/20-one.conf", "[Service]\nEnvironment=C=instance\n");
  t.Write("usr/lib/systemd/system/rocm-@0.service.d/30-prefix.conf", "[Service]\nEnvironment=D=prefix-instance\n");
  t.Write("usr/lib/systemd/system/rocm-@1.service.d/30-prefix.conf", "[Service]\nEnvironment=D=other\n");
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  auto ctx = UnitContext(*root, "rocm-llm@0.service", false, "");
  ASSERT_TRUE(ctx) << ctx.error().message;
  // 10-all.conf: the template's directory is more specific than the prefix's and hides it.
  EXPECT_EQ(Names(*ctx), (std::vector<std::string>{"A=unit", "A=template", "C=instance", "D=prefix-instance"}));
}

TEST(UnitFileTest, SectionsCommentsAndContinuations) {
  auto lines = ParseUnitFile(
      "[Service]\n"
      "Environment=A=1 \\\n"
      "# a comment inside the continuation\n"
      "  B=2\n"
      "  ; comment\n"
      "EnvironmentFile = -/etc/default/x \n"
      "[Install]\n"
      "WantedBy=multi-user.target\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].key, "Environment");
  EXPECT_EQ(lines[0].value, "A=1    B=2");  // the backslash became a space
  EXPECT_EQ(lines[0].line, 2);
  EXPECT_EQ(lines[1].value, "-/etc/default/x");
  EXPECT_EQ(lines[2].section, "Install");
  EXPECT_TRUE(IsUnitName("ollama.service"));
  EXPECT_TRUE(IsUnitName("getty@tty1.service"));
  EXPECT_FALSE(IsUnitName("ollama"));
  EXPECT_FALSE(IsUnitName("a b.service"));
  EXPECT_FALSE(IsUnitName("x.conf"));
}

// --- UnitContext ------------------------------------------------------------------------------

TEST(UnitContextTest, DropInsInNameOrderEtcHidesUsrLib) {
  testing::TestTree t;
  t.Write("usr/lib/systemd/system/ollama.service", "[Service]\nExecStart=/usr/bin/ollama serve\nEnvironment=A=unit\n");
  t.Write("usr/lib/systemd/system/ollama.service.d/10-vendor.conf", "[Service]\nEnvironment=A=vendor B=vendor\n");
  t.Write("etc/systemd/system/ollama.service.d/10-vendor.conf", "[Service]\nEnvironment=B=admin\n");
  t.Write("etc/systemd/system/ollama.service.d/20-override.conf",
          "[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=10.3.0\"\n");
  t.Write("run/systemd/system/ollama.service.d/15-run.conf", "[Service]\nEnvironment=C=run\n");
  t.Write("usr/lib/systemd/system/service.d/05-top.conf", "[Service]\nEnvironment=A=top T=top\n");
  t.Write("etc/systemd/system/ollama.service.d/30-other.conf", "[Unit]\nEnvironment=NOT=service\n");
  t.Write("etc/systemd/system/ollama.service.d/README", "[Service]\nEnvironment=NOT=conf\n");
  // The top-level service.d/ comes after every NAME.d/ in any directory: /usr/lib's 40-x.conf wins.
  t.Write("usr/lib/systemd/system/ollama.service.d/40-x.conf", "[Service]\nEnvironment=X=specific\n");
  t.Write("etc/systemd/system/service.d/40-x.conf", "[Service]\nEnvironment=X=top\n");
  sys::Root root = OpenTree(t);
  auto ctx = UnitContext(root, "ollama", false, "");
  ASSERT_TRUE(ctx) << ctx.error().message;
  EXPECT_EQ(ctx->kind, ContextKind::kUnit);
  EXPECT_EQ(ctx->name, "ollama.service");
  EXPECT_TRUE(ctx->starts);
  EXPECT_EQ(Names(*ctx), (std::vector<std::string>{"A=unit", "A=top", "T=top", "B=admin", "C=run",
                                                   "HSA_OVERRIDE_GFX_VERSION=10.3.0", "X=specific"}));
  EXPECT_EQ(ctx->env[5].file, "etc/systemd/system/ollama.service.d/20-override.conf");
  EXPECT_EQ(ctx->env[5].line, 2);
  EXPECT_EQ(KnownValues(*ctx).at("A"), "top");
}

TEST(UnitContextTest, EmptyEnvironmentResetsAndFilesComeLast) {
  testing::TestTree t;
  t.Write("etc/systemd/system/x.service",
          "[Service]\nEnvironmentFile=/etc/default/x\nEnvironment=A=1 B=2\nEnvironment=\nEnvironment=C=3 F=env\n"
          "UnsetEnvironment=GONE\n");
  t.Write("etc/default/x", "F=file\nGONE=1\n");
  sys::Root root = OpenTree(t);
  auto ctx = UnitContext(root, "x.service", false, "");
  ASSERT_TRUE(ctx);
  EXPECT_EQ(Names(*ctx), (std::vector<std::string>{"C=3", "F=env", "F=file"}));
  EXPECT_EQ(KnownValues(*ctx).at("F"), "file");  // EnvironmentFile= wins whatever the line order
  EXPECT_EQ(ctx->env.back().file, "etc/default/x");
}

TEST(UnitContextTest, MissingEnvironmentFileWithAndWithoutDash) {
  testing::TestTree t;
  t.Write("etc/systemd/system/opt.service", "[Service]\nEnvironmentFile=-/etc/default/none\nEnvironment=A=1\n");
  t.Write("etc/systemd/system/req.service", "[Service]\nEnvironmentFile=/etc/default/none\nEnvironment=A=1\n");
  t.Write("etc/systemd/system/bad.service", "[Service]\nEnvironmentFile=/etc/default/bad\n");
  t.Write("etc/default/bad", "A=\xfe\n");
  sys::Root root = OpenTree(t);
  auto opt = UnitContext(root, "opt.service", false, "");
  ASSERT_TRUE(opt);
  EXPECT_TRUE(opt->starts);
  ASSERT_EQ(opt->notes.size(), 1u);
  EXPECT_NE(opt->notes[0].find("goes on without it"), std::string::npos) << opt->notes[0];
  auto req = UnitContext(root, "req.service", false, "");
  ASSERT_TRUE(req);
  EXPECT_FALSE(req->starts);
  EXPECT_NE(req->notes[0].find("refuses to start req.service"), std::string::npos) << req->notes[0];
  auto bad = UnitContext(root, "bad.service", false, "");
  ASSERT_TRUE(bad);
  EXPECT_FALSE(bad->starts);
  EXPECT_TRUE(bad->env.empty());
}

TEST(UnitContextTest, SpecifiersQuotesAndManagerDefaults) {
  testing::TestTree t;
  t.Write("etc/environment", "HSA_OVERRIDE_GFX_VERSION=9.0.0\n");  // pam_env: no system service reads it
  t.Write("etc/systemd/system.conf", "[Manager]\nDefaultEnvironment=HSA_ENABLE_SDMA=0\n");
  t.Write("usr/lib/systemd/system.conf.d/10-x.conf", "[Manager]\nDefaultEnvironment=ROCR_VISIBLE_DEVICES=0\n");
  t.Write("etc/systemd/system/w@.service", "[Service]\nEnvironment=N=%n I=%i H=%h HOST=%H \"Q=two words  \" P=100%%\n");
  sys::Root root = OpenTree(t);
  auto ctx = UnitContext(root, "w@gpu1.service", false, "");
  ASSERT_TRUE(ctx) << ctx.error().message;
  EXPECT_EQ(Names(*ctx), (std::vector<std::string>{"HSA_ENABLE_SDMA=0", "ROCR_VISIBLE_DEVICES=0", "N=w@gpu1.service",
                                                   "I=gpu1", "H=/root", "HOST=<computed>", "Q=two words  ", "P=100%"}));
  EXPECT_EQ(Values(*ctx).at("HOST"), std::nullopt);
  EXPECT_EQ(KnownValues(*ctx).count("HOST"), 0u);
}

TEST(UnitContextTest, MaskedMissingAndInvalid) {
  testing::TestTree t;
  t.Write("usr/lib/systemd/system/ollama.service", "[Service]\nEnvironment=A=1\n");
  t.Symlink("etc/systemd/system/ollama.service", "/dev/null");
  sys::Root root = OpenTree(t);
  auto masked = UnitContext(root, "ollama.service", false, "");
  ASSERT_TRUE(masked);
  EXPECT_FALSE(masked->starts);
  EXPECT_TRUE(masked->env.empty());
  EXPECT_EQ(UnitContext(root, "none.service", false, "").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(UnitContext(root, "a b.service", false, "").error().code, ErrorCode::kInvalidArgument);
}

// ExecStart= names the program (its bundled ROCm is what it loads): prefixes stripped, a reset in
// a drop-in replaces the unit's, a bare name found in systemd's fixed path (usr/local first),
// a specifier or an unknown bare name left unknown.
TEST(UnitContextTest, ExecStartNamesTheProgram) {
  testing::TestTree t;
  t.Write("usr/lib/systemd/system/ollama.service", "[Service]\nExecStart=/usr/bin/ollama serve\n");
  t.Write("usr/local/bin/ollama", "");
  t.Write("usr/bin/ollama", "");
  sys::Root root = OpenTree(t);
  auto plain = UnitContext(root, "ollama.service", false, "");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->exec, "/usr/bin/ollama");
  t.Write("etc/systemd/system/ollama.service.d/10-exec.conf",
          "[Service]\nExecStart=\nExecStart=@-ollama ollama serve\n");
  auto reset = UnitContext(root, "ollama.service", false, "");
  ASSERT_TRUE(reset);
  EXPECT_EQ(reset->exec, "/usr/local/bin/ollama");
  t.Write("etc/systemd/system/ollama.service.d/10-exec.conf",
          "[Service]\nExecStart=\nExecStart=\"%h/bin/ollama\" serve\n");
  EXPECT_EQ(UnitContext(root, "ollama.service", false, "")->exec, "");
  t.Write("etc/systemd/system/ollama.service.d/10-exec.conf", "[Service]\nExecStart=\nExecStart=nothere serve\n");
  EXPECT_EQ(UnitContext(root, "ollama.service", false, "")->exec, "");
  // Only the service section counts; [Install] or a socket's keys do not.
  t.Write("etc/systemd/system/ollama.service.d/10-exec.conf", "[Install]\nExecStart=/usr/local/bin/ollama\n");
  EXPECT_EQ(UnitContext(root, "ollama.service", false, "")->exec, "/usr/bin/ollama");
}

TEST(UnitContextTest, UserUnitGetsEnvironmentD) {
  testing::TestTree t;
  t.Write("home/u/.config/systemd/user/llama.service", "[Service]\nEnvironment=MODELS=%h/models\n");
  t.Write("etc/environment.d/10-rocm.conf", "HIP_VISIBLE_DEVICES=1\nROCM_PATH=/opt/rocm\n");
  t.Write("home/u/.config/environment.d/10-rocm.conf", "HIP_VISIBLE_DEVICES=0\n");  // hides /etc's 10-rocm.conf
  t.Write("usr/lib/environment.d/20-path.conf", "PATH=$PATH:/opt/rocm/bin\n");
  t.Write("etc/systemd/user.conf", "[Manager]\nDefaultEnvironment=HSA_XNACK=1\n");
  sys::Root root = OpenTree(t);
  auto ctx = UnitContext(root, "llama.service", true, "home/u");
  ASSERT_TRUE(ctx) << ctx.error().message;
  EXPECT_EQ(ctx->kind, ContextKind::kUserUnit);
  EXPECT_EQ(Names(*ctx), (std::vector<std::string>{"HSA_XNACK=1", "HIP_VISIBLE_DEVICES=0", "PATH=<computed>",
                                                   "MODELS=/home/u/models"}));
  EXPECT_EQ(UnitContext(root, "llama.service", false, "").error().code, ErrorCode::kNotFound);
}

TEST(UnitContextTest, EnvFileContextReadsKeyValueLines) {
  testing::TestTree t;
  t.Write("etc/default/ollama", "HSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\nOLLAMA_HOST=0.0.0.0\n");
  sys::Root root = OpenTree(t);
  auto ctx = EnvFileContext(root, "/etc/default/ollama");
  ASSERT_TRUE(ctx);
  EXPECT_EQ(ctx->kind, ContextKind::kEnvFile);
  EXPECT_EQ(KnownValues(*ctx).at("HSA_OVERRIDE_GFX_VERSION"), "10.3.0");
  EXPECT_EQ(ContextKindName(ctx->kind), "env-file");
  EXPECT_EQ(EnvFileContext(root, "etc/none").error().code, ErrorCode::kNotFound);
}

// --- CondaContext -----------------------------------------------------------------------------

TEST(CondaContextTest, StateEnvVarsThenActivateScriptsInOrder) {
  testing::TestTree t;
  const std::string env = "home/u/miniconda3/envs/ml";
  t.Mkdir(env + "/conda-meta");
  t.Write(env + "/etc/conda/env_vars.d/rocm.json",
          R"({"HSA_OVERRIDE_GFX_VERSION": "9.0.0", "ROCM_PATH": "/opt/rocm"})");
  t.Write(env + "/conda-meta/state", R"({"env_vars": {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "OLD": "***unset***"}})");
  t.Write(env + "/etc/conda/activate.d/20-b.sh",
          "export HIP_VISIBLE_DEVICES=0\nexport LD_LIBRARY_PATH=$CONDA_PREFIX/lib\n");
  t.Write(env + "/etc/conda/activate.d/10-a.sh", "export HIP_VISIBLE_DEVICES=1\n");
  t.Write(env + "/etc/conda/activate.d/30-c.csh", "setenv HIP_VISIBLE_DEVICES 7\n");
  sys::Root root = OpenTree(t);
  const std::vector<knobs::EnvSetting> base = {
      {"", 0, "PATH", "/usr/bin"}, {"", 0, "HSA_OVERRIDE_GFX_VERSION", "11.0.0"}, {"", 0, "OLD", "x"}};
  auto by_name = CondaContext(root, "ml", "home/u", base);
  ASSERT_TRUE(by_name) << by_name.error().message;
  EXPECT_EQ(by_name->kind, ContextKind::kConda);
  EXPECT_EQ(by_name->name, "conda env ml (/home/u/miniconda3/envs/ml)");
  Env values = Values(*by_name);
  EXPECT_EQ(values.at("HSA_OVERRIDE_GFX_VERSION"), "10.3.0");  // state wins over the package's and the shell's
  EXPECT_EQ(values.at("ROCM_PATH"), "/opt/rocm");
  EXPECT_EQ(values.at("HIP_VISIBLE_DEVICES"), "0");  // 20-b.sh runs after 10-a.sh; .csh is not bash's
  EXPECT_EQ(values.at("LD_LIBRARY_PATH"), std::nullopt);
  EXPECT_EQ(values.at("PATH"), "/home/u/miniconda3/envs/ml/bin:/usr/bin");
  EXPECT_EQ(values.at("CONDA_PREFIX"), "/home/u/miniconda3/envs/ml");
  EXPECT_EQ(values.count("OLD"), 0u);
  auto by_prefix = CondaContext(root, "/home/u/miniconda3/envs/ml", "home/u", base);
  ASSERT_TRUE(by_prefix);
  EXPECT_EQ(KnownValues(*by_prefix).at("HIP_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(KnownValues(*by_prefix).at("CONDA_DEFAULT_ENV"), "/home/u/miniconda3/envs/ml");
}

TEST(CondaContextTest, EnvironmentsTxtAndMissing) {
  testing::TestTree t;
  t.Mkdir("data/envs/torch/conda-meta");
  t.Write("home/u/.conda/environments.txt", "/data/envs/torch\n/gone/env\n");
  t.Mkdir("data/envs/notconda");
  sys::Root root = OpenTree(t);
  auto ctx = CondaContext(root, "torch", "home/u", {});
  ASSERT_TRUE(ctx) << ctx.error().message;
  EXPECT_EQ(KnownValues(*ctx).at("CONDA_PREFIX"), "/data/envs/torch");
  EXPECT_EQ(Values(*ctx).at("PATH"), std::nullopt);  // the shell's PATH is not known
  EXPECT_EQ(CondaContext(root, "gone", "home/u", {}).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(CondaContext(root, "/data/envs/notconda", "home/u", {}).error().code, ErrorCode::kNotFound);
}

// --- ServiceContexts --------------------------------------------------------------------------

TEST(ProgramServicesTest, OllamaAndEnabledRocmUnits) {
  testing::WorldCopy w("rx6900xt");
  namespace fs = std::filesystem;
  w.Write("etc/systemd/system/ollama.service", "[Service]\nExecStart=/usr/local/bin/ollama serve\n");
  w.Write("etc/systemd/system/ollama.service.d/override.conf",
          "[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=10.3.0\"\n");
  w.Write("usr/lib/systemd/system/comfy.service", "[Service]\nEnvironment=HIP_VISIBLE_DEVICES=1\n");
  w.Write("usr/lib/systemd/system/idle.service", "[Service]\nEnvironment=HIP_VISIBLE_DEVICES=0\n");
  w.Write("usr/lib/systemd/system/plain.service", "[Service]\nEnvironment=LANG=C\n");
  fs::create_directories(w.Path("etc/systemd/system/multi-user.target.wants"));
  for (const char* unit : {"comfy.service", "plain.service", "removed.service"})
    fs::create_symlink(std::string("/usr/lib/systemd/system/") + unit,
                       w.Path(std::string("etc/systemd/system/multi-user.target.wants/") + unit));
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  std::vector<Context> services = ServiceContexts(*root);
  std::vector<std::string> names;
  for (const Context& c : services) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"comfy.service", "ollama.service"}));
  ASSERT_EQ(services.size(), 2u);
  EXPECT_EQ(KnownValues(services[1]).at("HSA_OVERRIDE_GFX_VERSION"), "10.3.0");
  EXPECT_EQ(KnownValues(services[0]).at("HIP_VISIBLE_DEVICES"), "1");
}

}  // namespace
}  // namespace rocmtune::program
