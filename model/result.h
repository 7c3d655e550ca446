// Result<T>: a value or an Error, like std::expected (which g++ 12 lacks in C++20 mode).
// Propagate with DDBD_RETURN_IF_ERROR and DDBD_ASSIGN_OR_RETURN; ignore on purpose with
// .IgnoreError() so the spot can be found with a search.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "model/error.h"

namespace ddbd {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  const Error& error() const& {
    assert(!ok());
    return std::get<1>(state_);
  }
  Error&& error() && {
    assert(!ok());
    return std::get<1>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  void IgnoreError() const {}

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit

  bool ok() const { return !failed_; }
  const Error& error() const& {
    assert(failed_);
    return error_;
  }
  Error&& error() && {
    assert(failed_);
    return std::move(error_);
  }
  void IgnoreError() const {}

 private:
  Error error_{ErrorCode::kInternal, {}};
  bool failed_ = false;
};

using Status = Result<void>;
inline Status OkStatus() { return Status(); }

}  // namespace ddbd

#define DDBD_CONCAT_INNER_(a, b) a##b
#define DDBD_CONCAT_(a, b) DDBD_CONCAT_INNER_(a, b)

#define DDBD_RETURN_IF_ERROR(expr)                                  \
  do {                                                              \
    auto&& ddbd_status_ = (expr);                                   \
    if (!ddbd_status_.ok()) return std::move(ddbd_status_).error(); \
  } while (false)

#define DDBD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return std::move(tmp).error();     \
  lhs = std::move(tmp).value()

#define DDBD_ASSIGN_OR_RETURN(lhs, expr) \
  DDBD_ASSIGN_OR_RETURN_IMPL_(DDBD_CONCAT_(ddbd_result_, __LINE__), lhs, expr)
