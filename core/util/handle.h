// Handle<T, Free>: the one owner of a C handle (CONTRIBUTING.md: every C handle has an owner).
// A pointer handle (kmod_ctx*, sd_bus*, archive*, DIR*, a dlopen'ed library) or a descriptor (int,
// whose "none" is -1): moves, never copies, and calls Free once on what it holds when it is reset
// or goes out of scope. Free's return value (an unref's NULL, close's status) is not looked at: at
// that point nothing can be done about it.
//   using KmodCtx = Handle<kmod_ctx*, kmod_unref>;
//   using UniqueFd = Handle<int, ::close, -1>;          (sys/unique_fd.h)
#pragma once

#include <type_traits>
#include <utility>

namespace rocmtune {

template <typename T, auto Free, T kNone = T{}>
class Handle {
  static_assert(std::is_pointer_v<T> || std::is_integral_v<T>, "a C handle is a pointer or a descriptor");

 public:
  Handle() = default;
  explicit Handle(T handle) noexcept : handle_(handle) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : handle_(std::exchange(other.handle_, kNone)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) Reset(std::exchange(other.handle_, kNone));
    return *this;
  }
  ~Handle() { Reset(); }

  T get() const noexcept { return handle_; }
  bool valid() const noexcept { return handle_ != kNone; }
  explicit operator bool() const noexcept { return valid(); }
  T operator->() const noexcept requires std::is_pointer_v<T> { return handle_; }
  // Gives up ownership: the caller frees what this returns.
  [[nodiscard]] T Release() noexcept { return std::exchange(handle_, kNone); }
  // Frees what is held, then holds `handle`.
  void Reset(T handle = kNone) noexcept {
    T old = std::exchange(handle_, handle);
    if (old != kNone) static_cast<void>(Free(old));
  }

 private:
  T handle_ = kNone;
};

}  // namespace rocmtune
