#include "bus/contract.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace rocmtune::bus {
namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::string(ROCMTUNE_SOURCE_DIR) + "/" + relative);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The shipped polkit actions are exactly the ones the daemon asks for.
TEST(BusContractTest, PolkitActionsAreThePolicyFilesActions) {
  const std::string policy = ReadSource("polkit/org.rocmtune1.policy");
  ASSERT_FALSE(policy.empty());
  std::set<std::string> shipped;
  const std::regex action(R"re(<action id="([^"]+)")re");
  for (auto it = std::sregex_iterator(policy.begin(), policy.end(), action); it != std::sregex_iterator(); ++it)
    shipped.insert((*it)[1]);
  const std::set<std::string> declared(kActions.begin(), kActions.end());
  EXPECT_EQ(shipped, declared);
}

// Every rocmtune error name of the table is one the interface's contract names.
TEST(BusContractTest, ErrorNamesAreTheInterfacesErrors) {
  const std::string xml = ReadSource("dbus/org.rocmtune1.Manager.xml");
  ASSERT_FALSE(xml.empty());
  for (const ErrorEntry& e : Errors()) {
    if (!e.name.starts_with(kErrorPrefix)) continue;
    const std::string short_name(e.name.substr(kErrorPrefix.size()));
    EXPECT_TRUE(xml.find(std::string(e.name)) != std::string::npos ||
                xml.find("." + short_name + " ") != std::string::npos ||
                xml.find("." + short_name + ",") != std::string::npos)
        << e.name << " is not in dbus/org.rocmtune1.Manager.xml";
  }
}

// The daemon's direction read back by the client's: whatever the daemon names a failure, the
// client exits as the local path does for the same failure (client/exit_codes.h).
TEST(BusContractTest, EveryNameTheDaemonSendsReadsBackToItsCode) {
  for (ErrorCode code :
       {ErrorCode::kIo, ErrorCode::kNotFound, ErrorCode::kEscapesRoot, ErrorCode::kInvalidData, ErrorCode::kTooLarge,
        ErrorCode::kInvalidArgument, ErrorCode::kUnsupported, ErrorCode::kNotAuthorized}) {
    const std::string_view name = ErrorName(code);
    ASSERT_NE(FindError(name), nullptr) << name;
    const ErrorCode back = CodeFor(name);
    EXPECT_EQ(ErrorName(back), name) << name;
  }
  EXPECT_EQ(ErrorName(api::ChangeStatus::kOk), "");
  for (api::ChangeStatus s : {api::ChangeStatus::kRefused, api::ChangeStatus::kDrift, api::ChangeStatus::kNotAuthorized,
                              api::ChangeStatus::kFailed})
    EXPECT_NE(FindError(ErrorName(s)), nullptr);
}

// The map as it was before it became one table (daemon/bus_errors.cc and client/daemon_link.cc):
// exit codes and names are a contract scripts depend on.
TEST(BusContractTest, TheMapIsUnchanged) {
  EXPECT_EQ(ErrorName(ErrorCode::kInvalidArgument), "org.rocmtune1.Error.InvalidArgument");
  EXPECT_EQ(ErrorName(ErrorCode::kNotFound), "org.rocmtune1.Error.NotFound");
  EXPECT_EQ(ErrorName(ErrorCode::kUnsupported), "org.rocmtune1.Error.NotSupported");
  EXPECT_EQ(ErrorName(ErrorCode::kNotAuthorized), "org.freedesktop.DBus.Error.AccessDenied");
  EXPECT_EQ(ErrorName(ErrorCode::kIo), "org.rocmtune1.Error.Failed");
  EXPECT_EQ(ErrorName(ErrorCode::kTooLarge), "org.rocmtune1.Error.Failed");
  EXPECT_EQ(ErrorName(api::ChangeStatus::kRefused), "org.rocmtune1.Error.Refused");
  EXPECT_EQ(ErrorName(api::ChangeStatus::kDrift), "org.rocmtune1.Error.Drift");
  EXPECT_EQ(ErrorName(api::ChangeStatus::kNotAuthorized), "org.freedesktop.DBus.Error.AccessDenied");
  EXPECT_EQ(ErrorName(api::ChangeStatus::kFailed), "org.rocmtune1.Error.Failed");

  EXPECT_EQ(ExitFor("org.rocmtune1.Error.Refused"), 3);
  EXPECT_EQ(ExitFor("org.rocmtune1.Error.NotSupported"), 3);
  EXPECT_EQ(ExitFor("org.rocmtune1.Error.Drift"), 5);
  EXPECT_EQ(ExitFor("org.rocmtune1.Error.InvalidArgument"), 2);
  EXPECT_EQ(ExitFor("org.rocmtune1.Error.NotFound"), 2);
  EXPECT_EQ(ExitFor("org.freedesktop.DBus.Error.AccessDenied"), 4);
  EXPECT_EQ(ExitFor("org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"), 4);
  EXPECT_EQ(ExitFor("org.rocmtune1.Error.Busy"), 1);
  EXPECT_EQ(ExitFor("org.rocmtune1.Error.Failed"), 1);
  EXPECT_EQ(ExitFor("org.example.Unknown"), 1);

  EXPECT_EQ(CodeFor("org.rocmtune1.Error.Refused"), ErrorCode::kUnsupported);
  EXPECT_EQ(CodeFor("org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"), ErrorCode::kNotAuthorized);
  EXPECT_EQ(CodeFor("org.rocmtune1.Error.Drift"), ErrorCode::kIo);

  EXPECT_EQ(HintFor("org.rocmtune1.Error.NotFound"), "");
  EXPECT_EQ(HintFor("org.rocmtune1.Error.Busy"), "rocmtuned is busy with another request: try again when it is done");
  EXPECT_EQ(HintFor("org.freedesktop.DBus.Error.NoReply"), "rocmtuned is busy or stuck: see `journalctl -u rocmtuned`");
  EXPECT_EQ(HintFor("org.freedesktop.DBus.Error.Disconnected"), "see `journalctl -u rocmtuned`");
  EXPECT_EQ(HintFor("org.rocmtune1.Error.SomethingNew"), "");
}

}  // namespace
}  // namespace rocmtune::bus
