// Runs the built rocmtunectl (and through it the built rocmtune-helper) on a private copy of a
// world, as a script or Ansible would: argv in; exit code, stdout and stderr out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "test_tree.h"
#include "tree_snapshot.h"

namespace rocmtune::testing {

inline constexpr int kCannotDropPrivileges = 124;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  // stdout as exactly one JSON document (null JSON value when it is not one).
  nlohmann::ordered_json Json() const;
};

// What is wrong with a rocmtune.result.v1 document (rocmtunectl(1), JSON); empty when nothing.
std::string ResultDocumentProblems(const nlohmann::ordered_json& doc);

// rocmtunectl --root ROOT ARGS... with stdin from /dev/null, its stdout and stderr kept in
// files under `scratch_dir`; as uid/gid 65534 when `as_nobody` and running as root (exit code
// kCannotDropPrivileges if that fails), running a copy of rocmtunectl put in scratch_dir/bin,
// which must then be reachable by that user.
CliResult RunCtl(const std::string& root, const std::vector<std::string>& args, const std::string& scratch_dir,
                 bool as_nobody = false);

class WorldCopy {
 public:
  explicit WorldCopy(std::string_view world);

  const std::string& root() const { return root_; }
  std::string Path(std::string_view rel) const;
  std::string Read(std::string_view rel) const;
  void Write(std::string_view rel, std::string_view content) const;
  bool Exists(std::string_view rel) const;
  size_t JournalFiles() const;
  TreeSnapshot Snapshot() const { return SnapshotTree(root_); }

  // rocmtunectl --root <copy> ARGS...; as uid/gid 65534 when `as_nobody` and running as root
  // (exit code kCannotDropPrivileges if that fails). The copy is then made traversable by all.
  CliResult Ctl(const std::vector<std::string>& args, bool as_nobody = false) const;

 private:
  TestTree tree_;
  std::string root_;
};

// Most captured consumer worlds hold the DRM side only (their captures have no sys/class/kfd), so
// ROCm could not use their GPUs (gpu.no-kfd). For a test about something else, this writes the
// KFD topology those GPUs would have: a CPU node 0 and one node per GPU that status lists without
// a KFD node, with its gfx target version, PCI ids, location and render minor (linux
// amdkfd kfd_topology.c node properties).
void GiveKfd(const WorldCopy& w);

// The built-in profiles that fit the world, as `profiles --json` says.
std::vector<std::string> MatchingBuiltinProfiles(const WorldCopy& w);

}  // namespace rocmtune::testing
