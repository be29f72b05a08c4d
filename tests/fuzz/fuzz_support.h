// Shared pieces of the fuzz targets: a scratch world that lives as long as the process, and
// splitting one input into several files. Used by the libFuzzer build and by the replay build
// alike, so a target behaves the same under `make fuzz` and under `make check`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtune::fuzz {

// One input as text (NULs and invalid UTF-8 kept).
inline std::string_view AsText(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// Splits on kSeparator into at most `parts` pieces (the last one keeps any further
// separators); missing pieces are empty. The seed corpora use the same separator.
inline constexpr std::string_view kSeparator = "\n@@\n";
std::vector<std::string_view> SplitInput(std::string_view input, size_t parts);

// A directory under $TMPDIR (or /tmp), removed when the process exits normally. With
// `world` (a name under tests/worlds) it starts as a copy of that world.
class ScratchRoot {
 public:
  explicit ScratchRoot(std::string_view world = {});
  ~ScratchRoot();
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;

  const std::string& path() const { return path_; }
  // Replaces a file (parents created), byte for byte.
  void Write(std::string_view rel, std::string_view content) const;
  // Removes a file or a directory tree, if there.
  void Remove(std::string_view rel) const;

 private:
  std::string path_;
};

}  // namespace rocmtune::fuzz
