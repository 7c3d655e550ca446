// RunOnSmallStack: runs a function on a thread with a stack of a given size, so that tests can
// show a recursive parser or evaluator stays within a bound instead of overflowing (an
// overflow kills the test binary with SIGSEGV, which CTest reports as a failure).
#pragma once

#include <pthread.h>

#include <functional>
#include <stdexcept>

namespace ddbd::testing {

// AddressSanitizer's redzones make frames several times larger: stack budgets scale by this.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr size_t kSanitizerStackFactor = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr size_t kSanitizerStackFactor = 4;
#else
inline constexpr size_t kSanitizerStackFactor = 1;
#endif
#else
inline constexpr size_t kSanitizerStackFactor = 1;
#endif

// Runs `work` to completion on a new thread whose stack is `stack_bytes` long.
inline void RunOnSmallStack(size_t stack_bytes, const std::function<void()>& work) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  if (pthread_attr_setstacksize(&attributes, stack_bytes) != 0) {
    throw std::runtime_error("stack size refused");
  }
  pthread_t thread;
  auto body = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  if (pthread_create(&thread, &attributes, body, const_cast<std::function<void()>*>(&work)) != 0) {
    throw std::runtime_error("thread not started");
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
}

}  // namespace ddbd::testing
