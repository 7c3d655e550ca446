// Assertions on Result and Status values, shared by the GoogleTest suites.
#pragma once

#include <gtest/gtest.h>

#include "model/result.h"

#define DDBD_TEST_CONCAT_INNER_(a, b) a##b
#define DDBD_TEST_CONCAT_(a, b) DDBD_TEST_CONCAT_INNER_(a, b)

#define ASSERT_OK(expr)                                               \
  do {                                                                \
    const auto& ddbd_status_ = (expr);                                \
    ASSERT_TRUE(ddbd_status_.ok()) << ddbd_status_.error().message(); \
  } while (false)

#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)           \
  auto tmp = (expr);                                         \
  ASSERT_TRUE(tmp.ok()) << std::move(tmp).error().message(); \
  lhs = std::move(tmp).value()

#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(DDBD_TEST_CONCAT_(ddbd_result_, __LINE__), lhs, expr)
