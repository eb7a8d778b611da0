// How `tensorir test` compares an output with the expected one, element by element:
// within |got - want| <= atol + rtol * |want| as ONNX's tests do (equal infinities, and
// NaN against NaN, match), integers in exact arithmetic (int64 and uint64 beyond 2^53 too,
// which a double would round).
#pragma once
#include <cstddef>
#include <string>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::cli {

struct ElementComparison {
  size_t count = 0, bad = 0;
  size_t worst = 0;          // the element furthest outside (the first when all match)
  std::string got, want;     // the worst element's values, every digit of an integer
  std::string criterion;     // "outside rtol 0.001, atol 1e-07"
};

// `got` and `want` of one shape and element type (the caller checks both first).
ElementComparison compare_elements(const NDArray &got, const NDArray &want, double rtol, double atol);

}  // namespace tensorir::cli
