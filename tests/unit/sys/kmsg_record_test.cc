// /dev/kmsg records as the kernel's Documentation/ABI/testing/dev-kmsg describes them.
#include "sys/kmsg_record.h"

#include <gtest/gtest.h>

#include "sys/system_log.h"

namespace rocmtune::sys {
namespace {

TEST(KmsgRecordTest, KernelRecordWithDictionary) {
  auto r = ParseKmsgRecord(
      "3,1832,629844077,-;amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)\n"
      " SUBSYSTEM=pci\n DEVICE=+pci:0000:0b:00.0\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->facility, 0);
  EXPECT_EQ(r->level, 3);
  EXPECT_EQ(r->seq, 1832u);
  EXPECT_EQ(r->usec, 629844077u);
  EXPECT_EQ(r->message, "amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)");
}

TEST(KmsgRecordTest, LineWrittenByAProcessHasItsFacility) {
  // `echo '<3>amdgpu ...' > /dev/kmsg`: printk.c devkmsg_write keeps the level and, the prefix
  // naming no facility, gives it LOG_USER: 1 << 3 | 3.
  auto r =
      ParseKmsgRecord("11,2001,95000000,-;amdgpu 0000:03:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->facility, 1);
  EXPECT_EQ(r->level, 3);
}

TEST(KmsgRecordTest, OlderAndNewerHeaders) {
  // Kernel 3.5 had no FLAGS field; later kernels add fields after it (caller=), to be ignored.
  auto old = ParseKmsgRecord("6,5,100;amdgpu: Started evicting pasid 0x8002\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->usec, 100u);
  auto newer = ParseKmsgRecord("6,5,100,-,caller=T123;amdgpu: Started evicting pasid 0x8002\n");
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->seq, 5u);
  EXPECT_EQ(newer->message, "amdgpu: Started evicting pasid 0x8002");
}

TEST(KmsgRecordTest, EscapesAreUnescapedAndNulsBecomeSpaces) {
  auto r = ParseKmsgRecord("3,7,1,-;amdgpu: \\x09 Faulty UTCL2 client ID: TCP (0x8)\\x00x\\x5c\\xZZ\\x4\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->message, "amdgpu: \t Faulty UTCL2 client ID: TCP (0x8) x\\\\xZZ\\x4");
}

TEST(KmsgRecordTest, MessageIsBounded) {
  auto r = ParseKmsgRecord("3,7,1,-;" + std::string(20000, 'a') + "\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->message.size(), kMaxMessageBytes);
}

TEST(KmsgRecordTest, MalformedRecordsAreRejected) {
  for (std::string_view bad : {"", ";", "amdgpu: no header\n", "6,339;msg\n", "x,1,2,-;msg\n", "6,-1,2,-;msg\n",
                               "6,1,2.5,-;msg\n", "6,1,,-;msg\n", "6,99999999999999999999999,2,-;msg\n", "6,1,2,-\n"}) {
    EXPECT_FALSE(ParseKmsgRecord(bad)) << bad;
  }
}

}  // namespace
}  // namespace rocmtune::sys
