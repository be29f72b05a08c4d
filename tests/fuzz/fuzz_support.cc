#include "fuzz_support.h"

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace rocmtune::fuzz {

std::vector<std::string_view> SplitInput(std::string_view input, size_t parts) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < parts) {
    size_t at = input.find(kSeparator);
    if (at == std::string_view::npos) break;
    out.push_back(input.substr(0, at));
    input.remove_prefix(at + kSeparator.size());
  }
  out.push_back(input);
  out.resize(parts);
  return out;
}

ScratchRoot::ScratchRoot(std::string_view world) {
  std::string tmpl = (fs::temp_directory_path() / "rocmtune-fuzz-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    std::perror("mkdtemp");
    std::abort();  // not a finding: the target cannot run at all
  }
  path_ = tmpl;
  if (!world.empty()) {
    fs::path from = fs::path(ROCMTUNE_WORLDS_DIR) / world;
    fs::copy(from, fs::path(path_) / "w", fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    path_ += "/w";
  }
}

ScratchRoot::~ScratchRoot() {
  std::error_code ec;
  fs::path top = path_;
  if (top.filename() == "w") top = top.parent_path();
  fs::remove_all(top, ec);
}

void ScratchRoot::Write(std::string_view rel, std::string_view content) const {
  fs::path p = fs::path(path_) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", p.c_str());
    std::abort();
  }
}

void ScratchRoot::Remove(std::string_view rel) const {
  std::error_code ec;
  fs::remove_all(fs::path(path_) / rel, ec);
}

}  // namespace rocmtune::fuzz
