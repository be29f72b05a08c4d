// The two sources ReadSystemLog (sys/system_log.h) chooses between, and the log entries they share.
#pragma once

#include <deque>

#include "sys/root.h"
#include "sys/system_log.h"
#include "util/result.h"

namespace rocmtune::sys {

// Whether `root` has a journal: a journal file in var/log/journal or run/log/journal (or in a
// machine directory there).
bool HasJournal(const Root& root);

// The journal beneath `root` (sys/journal_reader.cc).
Result<LogRead> ReadJournal(const Root& root, const LogQuery& query);

// /dev/kmsg of the running system (sys/kmsg_reader.cc): this boot only.
Result<LogRead> ReadKmsg(const Root& root, const LogQuery& query);

// The newest `max` of what is added, oldest first; `truncated` once one had to go.
class NewestEntries {
 public:
  explicit NewestEntries(size_t max) : max_(max) {}
  void Add(LogEntry entry) {
    entries_.push_back(std::move(entry));
    while (entries_.size() > max_) {
      entries_.pop_front();
      truncated_ = true;
    }
  }
  bool truncated() const { return truncated_; }
  std::vector<LogEntry> Take() {
    return {std::make_move_iterator(entries_.begin()), std::make_move_iterator(entries_.end())};
  }

 private:
  size_t max_;
  std::deque<LogEntry> entries_;
  bool truncated_ = false;
};

}  // namespace rocmtune::sys
