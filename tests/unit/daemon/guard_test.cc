#include "daemon/guard.h"

#include <cerrno>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "bus/contract.h"
#include "bus/handles.h"

namespace rocmtune::daemon {
namespace {

// An exception thrown inside a callback does not leave it: the guard logs it (stderr outside
// systemd) and a method answers org.rocmtune1.Error.Failed.
TEST(GuardTest, AnExceptionBecomesFailedAndIsLogged) {
  bus::BusError error;
  testing::internal::CaptureStderr();
  const int r =
      Guard("a test callback", nullptr, {}, error.get(), []() -> int { throw std::runtime_error("injected"); });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r, -EIO);
  ASSERT_NE(error.name(), nullptr);
  EXPECT_STREQ(error.name(), bus::kErrorFailed);
  EXPECT_STREQ(error.message(), "internal error: injected");
  EXPECT_NE(log.find("rocmtuned: a test callback: caught an exception: injected"), std::string::npos) << log;
}

TEST(GuardTest, AnUnknownExceptionIsCaughtToo) {
  testing::internal::CaptureStderr();
  const int r = Guard("an event source", []() -> int { throw 42; });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r, -EIO);
  EXPECT_NE(log.find("an event source: caught an exception: an unknown exception"), std::string::npos) << log;
}

// An event source whose callback fails is disabled by sd-event: its events are dropped, said so.
TEST(GuardTest, AFailedEventCallbackIsLoggedAsDropped) {
  testing::internal::CaptureStderr();
  const int r = Guard("udev's monitor", [] { return -ENOMEM; });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r, -ENOMEM);
  EXPECT_NE(log.find("dropped the events of udev's monitor"), std::string::npos) << log;
}

TEST(GuardTest, SuccessPassesThroughSilently) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(Guard("a callback", [] { return 1; }), 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace rocmtune::daemon
