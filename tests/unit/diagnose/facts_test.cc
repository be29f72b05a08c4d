// One request, one read of each input (diagnose/facts.h): an assessment with everything that
// reads the environment files and modprobe.d at work — the settings' table, the caller's checks
// with their echo rule, the login environment of the verdict, the setting checks and the advice —
// reads the content of each of those files once (checks that a file may be read open it without
// reading it). The readings are counted by the kernel (inotify IN_ACCESS on the world's
// directories: one event per read(2) that returns bytes), not by a stand-in Root.
#include <sys/inotify.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "detect/inventory.h"
#include "diagnose/assess.h"

namespace rocmtune::diagnose {
namespace {

// Reads of files in the directories watched, by "dir/name", while it lives.
class OpenCounter {
 public:
  OpenCounter(const rocmtune::testing::WorldCopy& w, const std::vector<std::string>& dirs)
      : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    for (const std::string& d : dirs) {
      int wd = inotify_add_watch(fd_, w.Path(d).c_str(), IN_ACCESS);
      EXPECT_GE(wd, 0) << d;
      names_[wd] = std::string(d);
    }
  }
  ~OpenCounter() { close(fd_); }
  std::map<std::string, int> Counts() {
    std::map<std::string, int> out;
    alignas(inotify_event) char buf[65536];
    for (ssize_t n; (n = read(fd_, buf, sizeof buf)) > 0;)
      for (char* p = buf; p < buf + n;) {
        auto* e = reinterpret_cast<inotify_event*>(p);
        if (e->len > 0) ++out[names_[e->wd] + "/" + e->name];
        p += sizeof(inotify_event) + e->len;
      }
    return out;
  }

 private:
  int fd_;
  std::map<int, std::string> names_;
};

TEST(FactsTest, OneAssessmentReadsEachEnvironmentAndModprobeFileOnce) {
  rocmtune::testing::WorldCopy w("rx6600");
  // The admin's files: a variable the verdict, the caller's echo rule and the advice all look
  // at, and a module option the knobs' table, the setting checks and the advice look at.
  w.Write("etc/environment", "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  w.Write("etc/modprobe.d/local.conf", "options amdgpu noretry=0\n");
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  detect::Inventory inventory = detect::Detect(*root, {.use_libdrm = false});
  AssessOptions options;
  options.live_facts = false;
  // The caller's own variable, the same value as the file's: the echo rule reads the files too.
  options.caller_env = {{"", 0, "HSA_OVERRIDE_GFX_VERSION", std::string("10.3.0")}};
  OpenCounter counter(w, {"etc", "etc/modprobe.d"});
  auto a = Assess(*root, inventory, options);
  ASSERT_TRUE(a) << a.error().message;
  std::map<std::string, int> opened = counter.Counts();
  EXPECT_EQ(opened["etc/environment"], 1);
  EXPECT_EQ(opened["etc/modprobe.d/local.conf"], 1);
  // The assessment did read them: the variable is judged and the option is in the knobs' table.
  EXPECT_EQ(a->program.env.at("HSA_OVERRIDE_GFX_VERSION"), "10.3.0");
  bool noretry = false;
  for (const knobs::KnobState& k : a->knobs) noretry |= k.key.Text() == "amdgpu.noretry" && k.configured == "0";
  EXPECT_TRUE(noretry);
}

// The memory every GPU's figure depends on (TTM's pages_limit, MemTotal) is read once per
// assessment, not once per GPU and again by the known issues' rules: on the 63 partitions of an
// MI300X that was 126 readings of each, a quarter of rocmtuned's Describe.
TEST(FactsTest, OneAssessmentReadsTheMemoryLimitsOnceForEveryGpu) {
  rocmtune::testing::WorldCopy w("mi300x-cpx");
  w.Write("proc/meminfo", "MemTotal:       1584847704 kB\nMemFree:        1500000000 kB\n");
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  detect::Inventory inventory = detect::Detect(*root, {.use_libdrm = false});
  ASSERT_GT(inventory.gpus.size(), 60u);
  AssessOptions options;
  options.live_facts = false;
  OpenCounter counter(w, {"proc", "sys/module/ttm/parameters"});
  auto a = Assess(*root, inventory, options);
  ASSERT_TRUE(a) << a.error().message;
  std::map<std::string, int> read = counter.Counts();
  // One reading for the GPUs' memory; the knobs' table reads pages_limit's running value once more.
  EXPECT_EQ(read["proc/meminfo"], 1);
  EXPECT_LE(read["sys/module/ttm/parameters/pages_limit"], 2);
  ASSERT_EQ(a->memory.size(), inventory.gpus.size());
  for (const RocmMemory& m : a->memory) {
    EXPECT_EQ(m.ttm_module, "ttm");
    EXPECT_TRUE(m.system_limit_bytes.has_value());
  }
}

// The GPUs' links to the CPU are read at detection, which rocmtuned keeps: an assessment (a
// Describe) reads no io_links. It read one per partition of a 64-partition MI300X before.
TEST(FactsTest, AnAssessmentReadsNoIoLinks) {
  rocmtune::testing::WorldCopy w("mi300x-cpx");
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  std::vector<std::string> links;
  for (const auto& node : std::filesystem::directory_iterator(w.Path("sys/class/kfd/kfd/topology/nodes")))
    if (std::filesystem::exists(node.path() / "io_links/0"))
      links.push_back("sys/class/kfd/kfd/topology/nodes/" + node.path().filename().string() + "/io_links/0");
  ASSERT_GT(links.size(), 60u);
  OpenCounter detection(w, links);
  detect::Inventory inventory = detect::Detect(*root, {.use_libdrm = false});
  ASSERT_GT(inventory.gpus.size(), 60u);
  // Detection reads them (the counter can see the reads it is there to see).
  EXPECT_GE(detection.Counts().size(), inventory.gpus.size());
  for (const detect::Gpu& g : inventory.gpus) EXPECT_EQ(g.cpu_link_no_atomics, std::optional<bool>(false)) << g.id;
  OpenCounter assessment(w, links);
  AssessOptions options;
  options.live_facts = false;
  auto a = Assess(*root, inventory, options);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(assessment.Counts().empty());
}

}  // namespace
}  // namespace rocmtune::diagnose
