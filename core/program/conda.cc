// CondaContext: what `conda activate ENV` leaves in the shell, read from the environment's files
// (conda/activate.py _Activator._build_activate_stack, conda 23-24):
//   1. CONDA_PREFIX, CONDA_DEFAULT_ENV and PATH with PREFIX/bin first (_add_prefix_to_path);
//   2. _get_environment_env_vars: etc/conda/env_vars.d/*.json (packages' variables, files in
//      sorted order), then conda-meta/state "env_vars" (`conda env config vars set`), which win;
//      the value "***unset***" (conda/base/constants.py CONDA_ENV_VARS_UNSET_VAR) unsets;
//   3. _get_activate_scripts: etc/conda/activate.d/*.sh sourced in sorted path order, after the
//      exports. They are read with util/shell_words.h, never run: a value that needs the shell
//      ("$CONDA_PREFIX/lib") is computed.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "program/context.h"
#include "util/text.h"

namespace rocmtune::program {
namespace {

constexpr size_t kMaxCondaBytes = 256 * 1024;
constexpr size_t kMaxScripts = 64;
constexpr std::string_view kUnsetValue = "***unset***";

std::string Rel(std::string_view path) {
  while (path.starts_with('/')) path.remove_prefix(1);
  return std::string(path);
}

bool IsEnv(const sys::Root& root, const std::string& prefix) {
  return !prefix.empty() && root.IsDirectory(sys::JoinPath(prefix, "conda-meta"));
}

// The prefix of a named environment, root-relative, or empty.
std::string FindByName(const sys::Root& root, std::string_view env, std::string_view home) {
  std::vector<std::string> roots;
  if (!home.empty())
    for (const char* r : {"miniconda3", "anaconda3", "miniforge3", ".conda"}) roots.push_back(sys::JoinPath(home, r));
  roots.emplace_back("opt/conda");
  for (const std::string& r : roots) {
    if (env == "base" && IsEnv(root, r)) return r;
    std::string prefix = sys::JoinPath(sys::JoinPath(r, "envs"), env);
    if (IsEnv(root, prefix)) return prefix;
  }
  // ~/.conda/environments.txt: every prefix conda created, one absolute path a line.
  if (home.empty()) return "";
  auto listed = root.ReadFile(sys::JoinPath(home, ".conda/environments.txt"), kMaxCondaBytes);
  if (!listed) return "";
  for (std::string_view line : text::SplitLines(*listed)) {
    std::string prefix = Rel(text::Trim(line));
    if (prefix.substr(prefix.rfind('/') + 1) == env && IsEnv(root, prefix)) return prefix;
  }
  return "";
}

void Set(Context& ctx, std::string file, std::string name, std::optional<std::string> value) {
  ctx.env.push_back({std::move(file), 0, std::move(name), std::move(value)});
}

// One JSON object of name -> value (a state file's env_vars, an env_vars.d file).
void AddJsonVars(Context& ctx, const sys::Root& root, const std::string& file, const nlohmann::json& vars) {
  if (!vars.is_object()) return;
  for (const auto& item : vars.items()) {
    const std::string& name = item.key();
    const nlohmann::json& value = item.value();
    if (!value.is_string()) continue;
    const std::string v = value.get<std::string>();
    if (v == kUnsetValue) {
      std::erase_if(ctx.env, [&](const knobs::EnvSetting& s) { return s.name == name; });
      ctx.notes.push_back(fmt::format("{} unsets {}", root.Display(file), name));
    } else {
      Set(ctx, file, name, v);
    }
  }
}

std::optional<nlohmann::json> ReadJson(const sys::Root& root, const std::string& file, Context& ctx) {
  auto content = root.ReadFile(file, kMaxCondaBytes);
  if (!content) {
    if (content.error().code != ErrorCode::kNotFound)
      ctx.notes.push_back(fmt::format("{} could not be read: {}", root.Display(file), content.error().message));
    return std::nullopt;
  }
  nlohmann::json doc = nlohmann::json::parse(*content, nullptr, false);
  if (doc.is_discarded()) {
    ctx.notes.push_back(fmt::format("{} is not JSON; conda activate fails on it", root.Display(file)));
    return std::nullopt;
  }
  return doc;
}

}  // namespace

Result<Context> CondaContext(const sys::Root& root, std::string_view env, std::string_view home,
                             const std::vector<knobs::EnvSetting>& base) {
  if (env.empty()) return Fail(ErrorCode::kInvalidArgument, "no conda environment named");
  std::string prefix;
  if (env.find('/') != std::string_view::npos) {
    prefix = env.starts_with("~/") && !home.empty() ? sys::JoinPath(home, env.substr(2)) : Rel(env);
    if (!IsEnv(root, prefix))
      return Fail(ErrorCode::kNotFound,
                  fmt::format("{} is no conda environment (no conda-meta/)", root.Display(prefix)));
  } else {
    prefix = FindByName(root, env, home);
    if (prefix.empty()) return Fail(ErrorCode::kNotFound, fmt::format("no conda environment named {}", env));
  }
  const std::string abs_prefix = "/" + prefix;
  const std::string name = env.find('/') == std::string_view::npos ? std::string(env) : abs_prefix;

  Context ctx;
  ctx.kind = ContextKind::kConda;
  ctx.name = fmt::format("conda env {} ({})", prefix.substr(prefix.rfind('/') + 1), abs_prefix);
  ctx.env = base;
  std::optional<std::string> path;
  for (const knobs::EnvSetting& s : base)
    if (s.name == "PATH") path = s.value;
  Set(ctx, prefix, "CONDA_PREFIX", abs_prefix);
  Set(ctx, prefix, "CONDA_DEFAULT_ENV", name);
  Set(ctx, prefix, "PATH", path ? std::optional(abs_prefix + "/bin:" + *path) : std::nullopt);

  const std::string pkg_dir = sys::JoinPath(prefix, "etc/conda/env_vars.d");
  if (auto files = root.ListDir(pkg_dir))
    for (const std::string& f : *files)
      if (auto doc = ReadJson(root, sys::JoinPath(pkg_dir, f), ctx))
        AddJsonVars(ctx, root, sys::JoinPath(pkg_dir, f), *doc);
  const std::string state = sys::JoinPath(prefix, "conda-meta/state");
  if (auto doc = ReadJson(root, state, ctx); doc && doc->is_object() && doc->contains("env_vars"))
    AddJsonVars(ctx, root, state, (*doc)["env_vars"]);

  const std::string scripts = sys::JoinPath(prefix, "etc/conda/activate.d");
  if (auto files = root.ListDir(scripts)) {
    size_t read = 0;
    for (const std::string& f : *files) {  // ListDir sorts by name, as sorted() does in one directory
      if (!f.ends_with(".sh")) continue;
      if (++read > kMaxScripts) {
        ctx.notes.push_back(fmt::format("only the first {} activate.d scripts are read", kMaxScripts));
        break;
      }
      const std::string file = sys::JoinPath(scripts, f);
      auto content = root.ReadFile(file, kMaxCondaBytes);
      if (!content) {
        ctx.notes.push_back(fmt::format("{} could not be read: {}", root.Display(file), content.error().message));
        continue;
      }
      for (knobs::EnvSetting& s : knobs::ParseEnvSource(*content, true)) {
        s.file = file;
        if (!s.value)
          ctx.notes.push_back(fmt::format("{}:{}: {} is computed by the script", root.Display(file), s.line, s.name));
        ctx.env.push_back(std::move(s));
      }
    }
  }
  return ctx;
}

}  // namespace rocmtune::program
