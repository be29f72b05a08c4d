// Target names in file names and bundle ids, and which targets a GPU runs.
#include "runtime/code_names.h"

#include <gtest/gtest.h>

#include "runtime/runtime.h"

namespace rocmtune::runtime {
namespace {

using Targets = std::vector<std::string>;

TEST(RuntimeNames, RocblasLibraryFiles) {
  // rocBLAS 4.x's library directory (ROCm 6.x): lazy loading .dat, per-target kernels.
  EXPECT_EQ(TargetsInNames({"TensileLibrary_lazy_gfx1030.dat", "Kernels.so-000-gfx1030.hsaco",
                            "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx90a.co",
                            "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_fallback_gfx906.hsaco",
                            "TensileManifest.txt"}),
            (Targets{"gfx1030", "gfx906", "gfx90a"}));
}

TEST(RuntimeNames, XnackAndSrameccSuffixesAreStripped) {
  EXPECT_EQ(TargetsInNames({"Kernels.so-000-gfx90a-xnack-.hsaco", "Kernels.so-000-gfx90a-xnack+.hsaco",
                            "TensileLibrary_lazy_gfx942:sramecc+:xnack-.dat"}),
            (Targets{"gfx90a", "gfx942"}));
}

TEST(RuntimeNames, HipblasltFiles) {
  EXPECT_EQ(
      TargetsInNames({"hipblasltExtOpLibrary.dat", "extop_gfx942.co", "hipblasltTransform.hsaco",
                      "TensileLibrary_HH_HH_HA_Bias_SAV_Type_HH_HPA_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx1100.co"}),
      (Targets{"gfx1100", "gfx942"}));
}

TEST(RuntimeNames, MiopenDatabases) {
  // <target>_<CUs> for most, the CU count right after the processor for gfx90a.
  EXPECT_EQ(TargetsInNames(
                {"gfx1030_36.kdb", "gfx90a68.HIP.fdb.txt", "gfx1030_36.db", "gfx906_60.HIP.fdb.txt", "gfx90a6e.kdb"}),
            (Targets{"gfx1030", "gfx906", "gfx90a"}));
}

TEST(RuntimeNames, KernelPacksAndGenericTargets) {
  EXPECT_EQ(
      TargetsInNames({"blas_lib_gfx1100.kpack", "fft_lib_gfx1151.kpack", "blas_lib.kpm",
                      "TensileLibrary_lazy_gfx10-3-generic.dat", "extop_gfx9-4-generic.co", "x_gfx11-generic.co"}),
      (Targets{"gfx10-3-generic", "gfx11-generic", "gfx1100", "gfx1151", "gfx9-4-generic"}));
}

TEST(RuntimeNames, WhatIsNoTargetName) {
  // A "gfx" inside a word, a letter after the processor, too few digits, gfx5 (before GCN).
  EXPECT_EQ(
      TargetsInNames({"libgfx1030.so", "gfx1030abc.dat", "gfx10.dat", "gfx", "gfx512_1.kdb", "gfx9-x-generic.co", ""}),
      Targets{});
}

TEST(RuntimeNames, BundleEntryIds) {
  EXPECT_EQ(BundleEntryTarget("hipv4-amdgcn-amd-amdhsa--gfx1030"), "gfx1030");
  EXPECT_EQ(BundleEntryTarget("hip-amdgcn-amd-amdhsa--gfx906"), "gfx906");
  EXPECT_EQ(BundleEntryTarget("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"), "gfx90a");
  EXPECT_EQ(BundleEntryTarget("hipv4-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-"), "gfx906");
  EXPECT_EQ(BundleEntryTarget("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic"), "gfx10-3-generic");
  EXPECT_EQ(BundleEntryTarget("host-x86_64-unknown-linux"), std::nullopt);
  EXPECT_EQ(BundleEntryTarget("host-x86_64-unknown-linux-gnu-"), std::nullopt);
  EXPECT_EQ(BundleEntryTarget("openmp-amdgcn-amd-amdhsa--gfx90a"), std::nullopt);
  EXPECT_EQ(BundleEntryTarget("hipv4-nvptx64-nvidia-cuda--sm_80"), std::nullopt);
  EXPECT_EQ(BundleEntryTarget("hipv4-amdgcn-amd-amdhsa--gfx1030x"), std::nullopt);
  EXPECT_EQ(BundleEntryTarget("hipv4-amdgcn-amd-amdhsa--"), std::nullopt);
}

TEST(RuntimeRuns, SameProcessorWithOrWithoutFeatures) {
  EXPECT_TRUE(Runs("gfx1030", "gfx1030"));
  EXPECT_TRUE(Runs("gfx90a:xnack-", "gfx90a"));
  EXPECT_TRUE(Runs("gfx90a", "gfx90a:sramecc+:xnack-"));
  EXPECT_FALSE(Runs("gfx1030", "gfx1031"));  // what HSA_OVERRIDE_GFX_VERSION=10.3.0 works around
  EXPECT_FALSE(Runs("gfx1100", "gfx1101"));
  EXPECT_FALSE(Runs("", "gfx1030"));
  EXPECT_FALSE(Runs("gfx1030", ""));
}

// AMDGPUUsage, "AMDGPU Generic Processors": each generic target and exactly the processors listed.
TEST(RuntimeRuns, GenericTargetsCoverTheirListedProcessors) {
  const std::vector<std::pair<std::string, Targets>> table = {
      {"gfx9-generic", {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}},
      {"gfx9-4-generic", {"gfx940", "gfx941", "gfx942", "gfx950"}},
      {"gfx10-1-generic", {"gfx1010", "gfx1011", "gfx1012", "gfx1013"}},
      {"gfx10-3-generic", {"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"}},
      {"gfx11-generic", {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"}},
      {"gfx12-generic", {"gfx1200", "gfx1201"}},
  };
  const Targets every = {"gfx803",  "gfx900",  "gfx902",  "gfx904",  "gfx906",  "gfx908",  "gfx909",
                         "gfx90a",  "gfx90c",  "gfx940",  "gfx941",  "gfx942",  "gfx950",  "gfx1010",
                         "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033",
                         "gfx1034", "gfx1035", "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103",
                         "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200", "gfx1201"};
  for (const auto& [generic, covered] : table) {
    for (const std::string& isa : every) {
      bool listed = std::find(covered.begin(), covered.end(), isa) != covered.end();
      EXPECT_EQ(Runs(generic, isa), listed) << generic << " on " << isa;
    }
  }
  // gfx908 and gfx90a are in no generic target; a processor does not run a generic's code the other way round.
  EXPECT_FALSE(Runs("gfx1030", "gfx10-3-generic"));
  EXPECT_FALSE(Runs("gfx13-generic", "gfx1300"));
}

TEST(RuntimeNames, KindNames) {
  EXPECT_EQ(KindName(Kind::kSystem), "system");
  EXPECT_EQ(KindName(Kind::kDistro), "distro");
  EXPECT_EQ(KindName(Kind::kPath), "path");
  EXPECT_EQ(KindName(Kind::kTorch), "pytorch");
  EXPECT_EQ(KindName(Kind::kTheRock), "therock");
}

}  // namespace
}  // namespace rocmtune::runtime
