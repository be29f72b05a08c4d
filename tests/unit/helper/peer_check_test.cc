// Who the helper's socket serves (peer_check.h) and who may read its journal (state_access.h):
// root and rocmtuned's user as the root tree's etc/passwd and etc/group name it, no one else.
// Real sockets and real uids: a child process takes another uid (setresuid) and connects, or
// tries to read the journal. Needs root (to take another uid); skips otherwise.
#include "helper/peer_check.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/history.h"
#include "api/verify.h"
#include "helper/daemon_account.h"
#include "helper/executor.h"
#include "helper/journal_writer.h"
#include "helper/lock.h"
#include "helper/state_access.h"
#include "journal/history.h"
#include "journal/journal.h"
#include "journal/revert.h"
#include "journal/writer_probe.h"
#include "test_tree.h"

namespace rocmtune::helper {
namespace {

// uids/gids no account of this machine uses: the daemon's user in the test tree, and a stranger.
constexpr uid_t kDaemonId = 64310;
constexpr uid_t kStrangerId = 64311;

TEST(AccountIdIn, ReadsTheThirdFieldOfTheNamedLine) {
  std::string passwd =
      "root:x:0:0:root:/root:/bin/bash\n"
      "rocmtuned:x:5:5::/:/usr/sbin/nologin\n"
      "rocmtune:x:998:998:rocmtune GPU tuning daemon:/:/usr/sbin/nologin\n"
      "rocmtune:x:7:7::/:/bin/sh\n";
  EXPECT_EQ(AccountIdIn(passwd, "rocmtune"), 998u) << "the first line naming it wins, a longer name is another";
  EXPECT_EQ(AccountIdIn("rocmtune:x:999:\n", "rocmtune"), 999u) << "group(5) lines";
  EXPECT_EQ(AccountIdIn("rocmtune:x:999", "rocmtune"), 999u) << "no newline at the end";
  EXPECT_EQ(AccountIdIn(passwd, "nobody"), std::nullopt);
  EXPECT_EQ(AccountIdIn("", "rocmtune"), std::nullopt);
  for (const char* bad : {"rocmtune:x::0:\n", "rocmtune:x: 5:5:\n", "rocmtune:x:5x:5:\n", "rocmtune:x:-1:5:\n",
                          "rocmtune:x:4294967295:5:\n", "rocmtune:x:99999999999:5:\n", "rocmtune:x\n", "rocmtune\n"})
    EXPECT_EQ(AccountIdIn(bad, "rocmtune"), std::nullopt) << bad;
}

// Runs `body` in a child with uid and gid `id` (no supplementary groups); its exit status.
int AsUser(uid_t id, const std::function<int()>& body) {
  pid_t child = ::fork();
  if (child == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(id, id, id) != 0 || ::setresuid(id, id, id) != 0) ::_exit(90);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

class PeerCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as other uids";
    ASSERT_EQ(::chmod(tree_.path().c_str(), 0755), 0);
    socket_path_ = tree_.Path("helper.sock");
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(listener_, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(socket_path_.size(), sizeof(addr.sun_path));
    std::strcpy(addr.sun_path, socket_path_.c_str());
    ASSERT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << std::strerror(errno);
    ASSERT_EQ(::chmod(socket_path_.c_str(), 0666), 0);
    ASSERT_EQ(::listen(listener_, 4), 0);
  }
  void TearDown() override {
    if (listener_ >= 0) ::close(listener_);
  }

  // The helper's answer to a peer with uid `id` (root: this process itself).
  Result<void> CheckAs(uid_t id) {
    pid_t child = ::fork();
    if (child == 0) {
      if (id != 0 && (::setgroups(0, nullptr) != 0 || ::setresgid(id, id, id) != 0 || ::setresuid(id, id, id) != 0))
        ::_exit(90);
      int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::strcpy(addr.sun_path, socket_path_.c_str());
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) ::_exit(91);
      char c = 0;
      ::_exit(::read(fd, &c, 1) >= 0 ? 0 : 92);  // until the helper side closes
    }
    int conn = ::accept(listener_, nullptr, nullptr);
    auto root = sys::Root::Open(tree_.path());
    Result<void> out = root ? CheckPeer(conn, *root) : tl::unexpected(root.error());
    ::close(conn);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not connect: " << status;
    return out;
  }

  testing::TestTree tree_;
  std::string socket_path_;
  int listener_ = -1;
};

TEST_F(PeerCheckTest, RootAndTheDaemonsUserOnly) {
  tree_.Write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nrocmtune:x:64310:64310::/:/usr/sbin/nologin\n");
  EXPECT_TRUE(CheckAs(0)) << "root";
  auto daemon = CheckAs(kDaemonId);
  EXPECT_TRUE(daemon) << daemon.error().message;
  auto stranger = CheckAs(kStrangerId);
  ASSERT_FALSE(stranger);
  EXPECT_EQ(stranger.error().code, ErrorCode::kNotAuthorized);
  const std::string& why = stranger.error().message;
  EXPECT_NE(why.find("uid 64311"), std::string::npos) << why;
  EXPECT_NE(why.find("is not root and not the daemon's user rocmtune (uid 64310"), std::string::npos) << why;
}

TEST_F(PeerCheckTest, NoDaemonUserInTheTreeMeansRootOnly) {
  tree_.Write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nrocmtuned:x:64310:64310::/:/usr/sbin/nologin\n");
  EXPECT_TRUE(CheckAs(0));
  auto refused = CheckAs(kDaemonId);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("names no such user"), std::string::npos) << refused.error().message;
}

// The journal, its directory and the lock: readable by the daemon's group when the tree's
// etc/group has it, by no other user either way; earlier records (0600) are brought along.
class JournalAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown to the daemon's group and read as other uids";
    ASSERT_EQ(::chmod(tree_.path().c_str(), 0755), 0);
  }
  struct stat Stat(std::string_view rel) const {
    struct stat st {};
    EXPECT_EQ(::stat(tree_.Path(rel).c_str(), &st), 0) << rel;
    return st;
  }
  // Whether uid `id` (its own gid, and `group` as a supplementary one when given) can read `rel`.
  bool Readable(uid_t id, std::string_view rel) const {
    std::string path = tree_.Path(rel);
    return AsUser(id, [&] { return ::open(path.c_str(), O_RDONLY) >= 0 ? 0 : 1; }) == 0;
  }
  std::string Text(std::string_view rel) const {
    std::ifstream in(tree_.Path(rel), std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  // Writes one journal file under the lock, as a transaction's begin does.
  void WriteTransaction(uint64_t number) {
    auto root = sys::Root::Open(tree_.path());
    ASSERT_TRUE(root);
    auto lock = WriterLock::Acquire(*root, hooks_, false);
    ASSERT_TRUE(lock) << lock.error().message;
    auto writer = JournalWriter::Create(*root, hooks_, number);
    ASSERT_TRUE(writer) << writer.error().message;
    ASSERT_TRUE(writer->Append({{"record", "begin"}}));
  }

  testing::TestTree tree_;
  NoHooks hooks_;
};

TEST_F(JournalAccessTest, SharedWithTheDaemonsGroupReadOnly) {
  tree_.Write("etc/group", "root:x:0:\nrocmtune:x:64310:\n");
  // A record from before the daemon had a user: root's alone.
  tree_.Write(std::string(journal::kJournalDir) + "/000001.jsonl", "{}\n");
  tree_.Chmod(std::string(journal::kJournalDir) + "/000001.jsonl", 0600);
  WriteTransaction(2);
  for (std::string file : {"000001.jsonl", "000002.jsonl"}) {
    std::string rel = std::string(journal::kJournalDir) + "/" + file;
    struct stat st = Stat(rel);
    EXPECT_EQ(st.st_mode & 07777, 0640u) << rel;
    EXPECT_EQ(st.st_uid, 0u) << rel;
    EXPECT_EQ(st.st_gid, kDaemonId) << rel;
    EXPECT_TRUE(Readable(kDaemonId, rel)) << "the daemon's user reads " << rel;
    EXPECT_FALSE(Readable(kStrangerId, rel)) << "another user reads " << rel;
  }
  struct stat dir = Stat(journal::kJournalDir);
  EXPECT_EQ(dir.st_mode & 07777, 0750u);
  EXPECT_EQ(dir.st_gid, kDaemonId);
  // The lock is root's alone (security review 3, item 5): flock(2) needs only a descriptor open
  // for reading, so a group that reads it can hold it and stall every writer. The daemon still
  // tells whether a writer runs, through an O_PATH descriptor.
  struct stat lock = Stat(journal::kLockFile);
  EXPECT_EQ(lock.st_mode & 07777, 0600u);
  EXPECT_EQ(lock.st_gid, 0u);
  EXPECT_FALSE(Readable(kDaemonId, journal::kLockFile)) << "the daemon's user can open, and so hold, the lock";
  auto root = sys::Root::Open(tree_.path());
  ASSERT_TRUE(root);
  EXPECT_EQ(AsUser(kDaemonId, [&] { return journal::WriterRunning(*root) ? 1 : 0; }), 0) << "no writer runs";
  auto held = WriterLock::Acquire(*root, hooks_, false);
  ASSERT_TRUE(held) << held.error().message;
  EXPECT_EQ(AsUser(kDaemonId, [&] { return journal::WriterRunning(*root) ? 0 : 1; }), 0)
      << "the daemon's user no longer sees a writer running";
}

TEST_F(JournalAccessTest, RootsAloneWithoutTheGroup) {
  tree_.Write("etc/group", "root:x:0:\nrocmtuned:x:64310:\n");
  WriteTransaction(1);
  std::string rel = std::string(journal::kJournalDir) + "/000001.jsonl";
  EXPECT_EQ(Stat(rel).st_mode & 07777, 0600u);
  EXPECT_EQ(Stat(rel).st_gid, 0u);
  EXPECT_EQ(Stat(journal::kLockFile).st_mode & 07777, 0600u);
  EXPECT_FALSE(Readable(kDaemonId, rel));
}

// Security review 39, item 3b: a transaction that edits a file not every user may read (a 0600
// /etc/environment holding a token) keeps that file's contents out of the journal file the
// daemon's group reads; they are in a contents file only root reads. The daemon still reads the
// record's metadata (history, verify), and root rolls the transaction back byte for byte.
TEST_F(JournalAccessTest, APrivateFilesContentsStayRoots) {
  constexpr std::string_view kEnvironment =
      "API_TOKEN=secret123\n"
      "HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  constexpr std::string_view kCommented =
      "API_TOKEN=secret123\n"
      "# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  tree_.Write("etc/group", "root:x:0:\nrocmtune:x:64310:\n");
  tree_.Write("etc/environment", kEnvironment);
  tree_.Chmod("etc/environment", 0600);
  auto root = sys::Root::Open(tree_.path());
  ASSERT_TRUE(root);
  plan::Plan p;
  p.intent = {"unset", "", {"env.HSA_OVERRIDE_GFX_VERSION"}, "", {}};
  p.root = root->id();
  plan::Op op;
  op.kind = plan::OpKind::kWriteFile;
  op.backend = plan::BackendId::kEnv;
  op.path = "etc/environment";
  op.before = std::string(kEnvironment);
  op.after = std::string(kCommented);
  op.reason = "comment out the admin's HSA_OVERRIDE_GFX_VERSION";
  p.ops.push_back(op);
  Outcome out = Executor(*root, hooks_).Run(p, {});
  ASSERT_EQ(out.status, Status::kCommitted) << (out.messages.empty() ? "" : out.messages.front());
  ASSERT_EQ(Text("etc/environment"), kCommented);

  const std::string record = std::string(journal::kJournalDir) + "/000001.jsonl";
  const std::string contents = std::string(journal::kJournalDir) + "/000001.contents";
  EXPECT_EQ(Stat(record).st_mode & 07777, 0640u);
  EXPECT_EQ(Stat(record).st_gid, kDaemonId);
  EXPECT_EQ(Text(record).find("secret123"), std::string::npos) << Text(record);
  EXPECT_EQ(Text(record).find("10.3.0"), std::string::npos) << "no line of the file, changed or not";
  EXPECT_NE(Text(record).find("etc/environment"), std::string::npos) << "the metadata stays";
  EXPECT_EQ(Stat(contents).st_mode & 07777, 0600u);
  EXPECT_EQ(Stat(contents).st_uid, 0u);
  EXPECT_EQ(Stat(contents).st_gid, 0u);
  EXPECT_NE(Text(contents).find("secret123"), std::string::npos);
  EXPECT_TRUE(Readable(kDaemonId, record));
  EXPECT_FALSE(Readable(kDaemonId, contents)) << "the daemon's group reads the private file's contents";
  // A later helper run shares the journal again (ShareJournal): the contents file stays root's.
  ShareJournal(*root);
  EXPECT_EQ(Stat(contents).st_mode & 07777, 0600u);
  EXPECT_EQ(Stat(contents).st_gid, 0u);

  // The daemon's user: the metadata, no contents, and history and verify as before.
  EXPECT_EQ(AsUser(kDaemonId,
                   [&] {
                     auto system = api::LoadSystem(root->Duplicate().value());
                     if (!system || system->journal.size() != 1) return 1;
                     const journal::Transaction& txn = system->journal.front();
                     if (!txn.contents_withheld || txn.private_ops != std::vector<size_t>{0}) return 2;
                     if (txn.ops[0].path != "etc/environment" || txn.ops[0].after != "") return 3;
                     if (journal::ContentsKnown(txn, 0)) return 4;
                     api::HistoryReport history = api::History(*system);
                     if (history.entries.size() != 1 || !history.entries[0].in_effect) return 5;
                     if (api::HistoryJson(history).dump().find("etc/environment") == std::string::npos &&
                         api::HistoryJson(history).dump().find("unset") == std::string::npos)
                       return 6;
                     static_cast<void>(api::Verify(*system));  // must not fail or crash on what it cannot read
                     plan::Plan back = journal::RevertPlan(*root, system->journal, txn, true, {});
                     if (!back.ops.empty() || back.conflicts.empty()) return 7;
                     return 0;
                   }),
            0);

  // Root: every byte, and a rollback from the journal (the commit record cut, as a crash before it
  // leaves it) puts the file back as it was.
  auto txns = journal::Load(*root);
  ASSERT_TRUE(txns) << txns.error().message;
  ASSERT_EQ(txns->size(), 1u);
  EXPECT_FALSE(txns->front().contents_withheld);
  EXPECT_EQ(txns->front().ops[0].before, std::string(kEnvironment));
  EXPECT_EQ(txns->front().ops[0].after, std::string(kCommented));
  std::string text = Text(record);
  size_t commit = text.find("{\"record\":\"commit\"}");
  ASSERT_NE(commit, std::string::npos) << text;
  tree_.Write(record, text.substr(0, commit));
  Outcome recovered = Executor(*root, hooks_).Recover({});
  ASSERT_EQ(recovered.recovered, std::vector<std::string>{"1"})
      << (recovered.messages.empty() ? "" : recovered.messages.front());
  EXPECT_EQ(Text("etc/environment"), kEnvironment);
  EXPECT_EQ(Stat("etc/environment").st_mode & 07777, 0600u);
}

}  // namespace
}  // namespace rocmtune::helper
