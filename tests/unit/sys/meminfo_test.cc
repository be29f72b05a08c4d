// MemTotal: the RAM the size knobs are checked against and profiles' {gtt_pages} is computed from.
#include "sys/meminfo.h"

#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::sys {
namespace {

using testing::TestTree;

TEST(MeminfoTest, MemTotalFromMeminfo) {
  TestTree t;
  auto root = *Root::Open(t.path());
  EXPECT_FALSE(MemTotalKib(root)) << "no proc/meminfo";
  t.Write("proc/meminfo", "MemFree: 5 kB\nMemTotal:       131072000 kB\n");
  EXPECT_EQ(MemTotalKib(root), 131072000u);
  for (std::string_view bad : {"MemTotal: 12 MB\n", "MemTotal: lots kB\n", "MemTotal:\n", "MemTotal: 0 kB\n",
                               "MemTotal: 99999999999999999999999 kB\n", "MemTotalX 5 kB\n", "MemFree: 5 kB\n"}) {
    t.Write("proc/meminfo", bad);
    EXPECT_FALSE(MemTotalKib(root)) << bad;
  }
}

}  // namespace
}  // namespace rocmtune::sys
