// The built-in tables as the build made them: rocmtune-knowledge-gen (knowledge/gen/main.cc), a
// host program built from these same loaders, parses each data file with its T::Parse at build
// time (a broken file fails the build) and writes C++ that constructs the records it parsed
// (builtin_<table>.cc in the build tree). A program therefore parses no TOML for its built-in
// knowledge; T::Builtin() (knowledge/builtin_tables.cc) builds a table from that code on first use.
// The unit test BuiltinData.* checks that every table equals what T::Parse makes of its file.
#pragma once

#include <string>

namespace rocmtune::knowledge {

class AmdgpuIds;
class Catalog;
class EnvVars;
class GfxTargetTable;
class GpuTable;
class KernelOptions;
class KnownIssues;
class RocmSupport;
class RuntimeCode;

// The one friend of each table: the generated constructors and the generator's writers.
struct BuiltinData {
  // Generated (builtin_<table>.cc).
  static AmdgpuIds MakeAmdgpuIds();
  static Catalog MakeCatalog();
  static EnvVars MakeEnvVars();
  static GfxTargetTable MakeGfxTargets();
  static GpuTable MakeGpus();
  static KernelOptions MakeKernelOptions();
  static KnownIssues MakeKnownIssues();
  static RocmSupport MakeRocmSupport();
  static RuntimeCode MakeRuntimeCode();

  // The generator's half (knowledge/builtin_source.cc, in rocmtune-knowledge-gen only): the body
  // of the C++ source that builds a table equal to `t`.
  static std::string Source(const AmdgpuIds& t);
  static std::string Source(const Catalog& t);
  static std::string Source(const EnvVars& t);
  static std::string Source(const GfxTargetTable& t);
  static std::string Source(const GpuTable& t);
  static std::string Source(const KernelOptions& t);
  static std::string Source(const KnownIssues& t);
  static std::string Source(const RocmSupport& t);
  static std::string Source(const RuntimeCode& t);
};

}  // namespace rocmtune::knowledge
