// PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF / PYTORCH_HIP_ALLOC_CONF as PyTorch reads them:
// c10/core/AllocatorConfig.h (ConfigTokenizer: ',' ':' '[' ']' are tokens, whitespace is dropped),
// c10/core/AllocatorConfig.cpp (the common options) and c10/cuda/CUDAAllocatorConfig.cpp (the
// device ones; on ROCm the hip* spellings too). PyTorch checks the value when it first
// allocates GPU memory and raises, so a program that ran before fails. Where releases differ
// the stricter rule holds: max_split_size_mb must be > 20 (older releases refuse 20), and the
// ',' between options is required (older releases check it).
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "knowledge/env_vars.h"
#include "util/text.h"

namespace rocmtune::knowledge {
namespace {

std::vector<std::string> Tokens(std::string_view value) {
  std::vector<std::string> out;
  std::string buffer;
  for (char c : value) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!buffer.empty()) out.push_back(std::move(buffer));
      buffer.clear();
      out.emplace_back(1, c);
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') {
      buffer += c;
    }
  }
  if (!buffer.empty()) out.push_back(std::move(buffer));
  return out;
}

std::optional<uint64_t> Whole(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  return text::ParseU64(s);
}

bool PowerOf2(uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

constexpr std::string_view kBoolKeys[] = {"expandable_segments",
                                          "pinned_use_background_threads",
                                          "release_lock_on_hipmalloc",
                                          "release_lock_on_cudamalloc",
                                          "pinned_use_hip_host_register",
                                          "pinned_use_cuda_host_register",
                                          "graph_capture_record_stream_reuse"};
constexpr std::string_view kOtherKeys[] = {
    "max_split_size_mb", "max_non_split_rounding_mb",   "garbage_collection_threshold",  "roundup_power2_divisions",
    "backend",           "pinned_num_register_threads", "pinned_reserve_segment_size_mb"};

bool IsBoolKey(std::string_view key) {
  for (std::string_view k : kBoolKeys)
    if (k == key) return true;
  return false;
}

bool IsKey(std::string_view key) {
  for (std::string_view k : kOtherKeys)
    if (k == key) return true;
  return IsBoolKey(key);
}

class Parser {
 public:
  explicit Parser(std::vector<std::string> tokens) : t_(std::move(tokens)) {}

  // Empty when the whole value parses, else why not.
  std::string Run() {
    while (i_ < t_.size()) {
      const std::string key = t_[i_];
      if (!IsKey(key)) {
        std::string keys;
        for (std::string_view k : kOtherKeys) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
        for (std::string_view k : kBoolKeys) keys += fmt::format(", {}", k);
        return fmt::format(
            "'{}' is not a caching-allocator option (PyTorch says \"Unrecognized CachingAllocator "
            "option\"); the options are {}",
            key, keys);
      }
      if (i_ + 1 >= t_.size() || t_[i_ + 1] != ":") return fmt::format("{} needs ':' and a value", key);
      i_ += 2;
      if (std::string why = Option(key); !why.empty()) return why;
      if (++i_ < t_.size()) {
        if (t_[i_] != ",") return fmt::format("options are separated by ',' (found '{}' after {})", t_[i_], key);
        ++i_;
      }
    }
    return "";
  }

 private:
  std::string_view Value() const { return i_ < t_.size() ? std::string_view(t_[i_]) : std::string_view(); }

  // Checks the value of `key` at i_ and leaves i_ on its last token.
  std::string Option(const std::string& key) {
    std::string_view v = Value();
    if (IsBoolKey(key))
      return v == "True" || v == "False" ? "" : fmt::format("{} takes True or False (capitalized), not '{}'", key, v);
    if (key == "max_split_size_mb") {
      auto n = Whole(v);
      return n && *n > 20 ? "" : fmt::format("max_split_size_mb must be a whole number of MiB > 20, not '{}'", v);
    }
    if (key == "max_non_split_rounding_mb") {
      auto n = Whole(v);
      return n && *n >= 20 ? ""
                           : fmt::format("max_non_split_rounding_mb must be a whole number of MiB >= 20, not '{}'", v);
    }
    if (key == "pinned_reserve_segment_size_mb") {
      auto n = Whole(v);
      return n && *n > 0 ? "" : fmt::format("pinned_reserve_segment_size_mb must be a whole number > 0, not '{}'", v);
    }
    if (key == "pinned_num_register_threads") {
      auto n = Whole(v);
      if (!n || !PowerOf2(*n)) return fmt::format("pinned_num_register_threads must be a power of 2, not '{}'", v);
      return *n <= 128 ? "" : fmt::format("pinned_num_register_threads is at most 128, not {}", *n);
    }
    if (key == "garbage_collection_threshold") {
      std::string s(v);
      char* end = nullptr;
      double x = s.empty() ? NAN : std::strtod(s.c_str(), &end);
      bool number = !s.empty() && end == s.c_str() + s.size() && std::isfinite(x);
      return number && x > 0 && x < 1.0 ? ""
                                        : fmt::format(
                                              "garbage_collection_threshold must be a number in (0.0, 1.0) "
                                              "(both ends excluded), not '{}'",
                                              v);
    }
    if (key == "backend")
      return v == "native" || v == "hipMallocAsync" || v == "cudaMallocAsync"
                 ? ""
                 : fmt::format("backend is native, hipMallocAsync or cudaMallocAsync, not '{}'", v);
    return RoundupDivisions();
  }

  // roundup_power2_divisions:N (N a power of 2), or [B:N,...,>:N] with B a power of 2 (MiB)
  // and N a power of 2 or 0.
  std::string RoundupDivisions() {
    if (Value() != "[") {
      auto n = Whole(Value());
      return n && PowerOf2(*n) ? ""
                               : fmt::format(
                                     "roundup_power2_divisions must be a power of 2 or a list "
                                     "[size:divisions,...,>:divisions], not '{}'",
                                     Value());
    }
    while (++i_ < t_.size() && t_[i_] != "]") {
      std::string_view boundary = t_[i_];
      if (boundary != ">") {
        auto b = Whole(boundary);
        if (!b || !PowerOf2(*b))
          return fmt::format("roundup_power2_divisions: the interval '{}' must be a power of 2 or '>'", boundary);
      }
      if (++i_ >= t_.size() || t_[i_] != ":") return "roundup_power2_divisions: each entry is size:divisions";
      ++i_;
      auto n = Whole(Value());
      if (!n || (*n != 0 && !PowerOf2(*n)))
        return fmt::format("roundup_power2_divisions: divisions must be a power of 2 or 0, not '{}'", Value());
      if (i_ + 1 < t_.size() && t_[i_ + 1] == ",") ++i_;
    }
    return i_ < t_.size() ? "" : "roundup_power2_divisions: the list lacks its closing ']'";
  }

  std::vector<std::string> t_;
  size_t i_ = 0;
};

}  // namespace

std::string CheckAllocConf(std::string_view name, std::string_view value) {
  std::string why = Parser(Tokens(value)).Run();
  if (why.empty()) return "";
  return fmt::format("{}={} is refused by PyTorch's allocator config parser: {}", name, value, why);
}

}  // namespace rocmtune::knowledge
