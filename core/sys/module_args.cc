#include "sys/module_args.h"

#include <algorithm>

#include <fmt/format.h>

namespace rocmtune::sys {
namespace {

constexpr std::string_view kModuleArgsCmdline = "proc/cmdline";
// libkmod reads /proc/cmdline into a KCMD_LINE_SIZE (4096) buffer, terminating NUL included.
constexpr size_t kKcmdlineMax = 4095;

}  // namespace

bool Underscores(std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '-') {
      s[i] = '_';
    } else if (s[i] == ']') {
      return false;
    } else if (s[i] == '[') {
      i = s.find(']', i);
      if (i == std::string::npos) return false;
    }
  }
  return true;
}

std::string ParamName(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

bool IsKernelSpace(char c) {
  auto u = static_cast<unsigned char>(c);
  return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

std::vector<ModuleArg> SplitModuleArgs(std::string_view s) {
  std::vector<ModuleArg> args;
  size_t p = 0;
  auto skip_spaces = [&] {
    while (p < s.size() && IsKernelSpace(s[p])) ++p;
  };
  skip_spaces();
  while (p < s.size()) {
    ModuleArg arg;
    arg.offset = p;
    bool in_quote = false, quoted = false;
    if (s[p] == '"') {
      ++p;
      in_quote = quoted = true;
    }
    std::string_view rest = s.substr(p);
    size_t i = 0, equals = 0;  // as in next_arg(), '=' as the first byte does not count
    for (; i < rest.size(); ++i) {
      if (IsKernelSpace(rest[i]) && !in_quote) break;
      if (equals == 0 && rest[i] == '=') equals = i;
      if (rest[i] == '"') in_quote = !in_quote;
    }
    std::string_view word = rest.substr(0, i);
    // next_arg() overwrites a closing quote with NUL: the value's, or the word's if it began with one.
    bool ends_in_quote = i > 0 && word[i - 1] == '"';
    if (equals == 0) {
      arg.name = std::string(word.substr(0, quoted && ends_in_quote ? i - 1 : i));
    } else {
      arg.name = std::string(word.substr(0, equals));
      size_t begin = equals + 1, end = i;
      if (begin < i && word[begin] == '"') {
        ++begin;
        if (ends_in_quote) end = i - 1;
      } else if (quoted && ends_in_quote) {
        end = i - 1;
      }
      arg.value = begin < end ? std::string(word.substr(begin, end - begin)) : std::string();
    }
    args.push_back(std::move(arg));
    p += i;
    if (p < s.size()) ++p;
    skip_spaces();
  }
  return args;
}

std::vector<std::pair<std::string, std::string>> KernelCmdlineModuleOptions(std::string_view cmdline,
                                                                            std::vector<std::string>* errors) {
  // A port of kmod 30's state machine, including its re-quoting of grub's
  // "mod.p=a b" into p="a b" (kmod commit "libkmod-config: re-quote option from kernel cmdline").
  std::string_view buf = cmdline.substr(0, kKcmdlineMax);
  enum class State { kIgnore, kModname, kParam, kValue, kComplete };
  constexpr size_t kNone = std::string_view::npos;
  State state = State::kModname;
  bool quoted = false, more = true;
  size_t modname = 0, param = kNone, value = kNone, quote_start = kNone;
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t p = 0; more; ++p) {
    char c = p < buf.size() ? buf[p] : '\0';
    switch (c) {
      case '"':
        quoted = !quoted;
        if (quoted && state == State::kModname && p == modname) {
          quote_start = p;
          modname = p + 1;
        } else if (state != State::kValue) {
          state = State::kIgnore;
        }
        break;
      case '\0':
      case '\n': more = false; [[fallthrough]];
      case ' ':
        if (quoted && state == State::kValue) {
        } else if (quoted) {
          state = State::kIgnore;
        } else if (state == State::kValue || state == State::kParam) {
          state = State::kComplete;
        } else {
          modname = p + 1;
          state = State::kModname;
          quote_start = kNone;
        }
        break;
      case '.':
        if (state == State::kModname) {
          param = p + 1;
          state = State::kParam;
        } else if (state == State::kParam) {
          state = State::kIgnore;
        }
        break;
      case '=':
        if (state == State::kParam) {
          value = p + 1;
          state = State::kValue;
        } else if (state == State::kModname) {
          state = State::kIgnore;
        }
        break;
      default: break;
    }
    if (state != State::kComplete) continue;
    std::string module(buf.substr(modname, param - 1 - modname));
    std::string option;
    if (quote_start != kNone && value != kNone)
      option = fmt::format("{}\"{}", buf.substr(param, value - param), buf.substr(value, p - value));
    else option = std::string(buf.substr(param, p - param));
    // kcmdline_parse_result(): modprobe.blacklist= is a blacklist, not an option.
    if (!(module == "modprobe" && option.starts_with("blacklist="))) {
      std::string raw = module;
      if (Underscores(module)) {
        std::replace(option.begin(), option.end(), '\t', ' ');
        out.emplace_back(std::move(module), std::move(option));
      } else if (errors) {
        errors->push_back(fmt::format("{}: Ignoring bad option on kernel command line while parsing module name: '{}'",
                                      kModuleArgsCmdline, raw));
      }
    }
    modname = p + 1;
    state = State::kModname;
    param = value = quote_start = kNone;
  }
  return out;
}

}  // namespace rocmtune::sys
