// RAII for file descriptors and C handles.
#pragma once

#include <unistd.h>

#include <memory>
#include <utility>

namespace rocmtune::sys {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release() { return std::exchange(fd_, -1); }
  void Reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Deleter that calls a C free function: std::unique_ptr<kmod_ctx, FreeWith<kmod_unref>>.
template <auto F>
struct FreeWith {
  template <typename T>
  void operator()(T* p) const {
    if (p) F(p);
  }
};

template <typename T, auto F>
using UniqueHandle = std::unique_ptr<T, FreeWith<F>>;

}  // namespace rocmtune::sys
