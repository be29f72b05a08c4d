#include "client/escaped_output.h"

#include <unistd.h>

#include <cerrno>
#include <string>

#include "util/text.h"

namespace rocmtune::client {
namespace {

struct Sink {
  int fd;
  std::string held;  // the start of a UTF-8 character whose other bytes come with the next write
};

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

ssize_t SinkWrite(void* cookie, const char* buf, size_t size) {
  auto* sink = static_cast<Sink*>(cookie);
  // stdio hands over its buffer in arbitrary pieces: a character cut at the end is kept for
  // the next piece instead of being shown as invalid bytes.
  sink->held.append(buf, size);
  size_t keep = text::IncompleteUtf8Tail(sink->held);
  std::string_view ready = std::string_view(sink->held).substr(0, sink->held.size() - keep);
  bool ok = WriteAll(sink->fd, text::EscapeControl(ready, true));
  sink->held.erase(0, sink->held.size() - keep);
  return ok ? static_cast<ssize_t>(size) : -1;
}

int SinkClose(void* cookie) {
  auto* sink = static_cast<Sink*>(cookie);
  bool ok = WriteAll(sink->fd, text::EscapeControl(sink->held, true));
  delete sink;
  return ok ? 0 : -1;
}

// A stream that escapes what it is given and writes it to `fd`, buffered like the stream it
// replaces is for a terminal (by line) so output and the helper's own stderr stay in order.
FILE* Filter(FILE* original) {
  std::fflush(original);
  auto* sink = new Sink{::fileno(original), {}};
  FILE* f = ::fopencookie(sink, "w", cookie_io_functions_t{nullptr, SinkWrite, nullptr, SinkClose});
  if (!f) {
    delete sink;
    return nullptr;
  }
  std::setvbuf(f, nullptr, _IOLBF, BUFSIZ);
  return f;
}

}  // namespace

EscapedOutput::EscapedOutput(bool filter_stdout) {
  // glibc's stdout and stderr are plain variables (and fmt::print reads them at each call).
  if (filter_stdout)
    if (FILE* f = Filter(stdout)) {
      original_stdout_ = stdout;
      stdout = f;
    }
  if (FILE* f = Filter(stderr)) {
    original_stderr_ = stderr;
    stderr = f;
  }
}

EscapedOutput::~EscapedOutput() {
  if (original_stdout_) {
    std::fclose(stdout);
    stdout = original_stdout_;
  }
  if (original_stderr_) {
    std::fclose(stderr);
    stderr = original_stderr_;
  }
}

}  // namespace rocmtune::client
