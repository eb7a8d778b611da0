// Comparing a pass's output with the IR a test expects, printing both on a mismatch.
#pragma once
#include <catch2/catch.hpp>

#include "tensorir/ir/printer.h"
#include "tensorir/ir/structural.h"

#define TIR_CHECK_IR(out, expected)                              \
  do {                                                           \
    INFO("got:\n" << ::tensorir::to_string(out));                \
    INFO("expected:\n" << ::tensorir::to_string(expected));      \
    CHECK(::tensorir::structural_equal((out), (expected)));      \
  } while (0)
