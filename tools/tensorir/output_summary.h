// What `tensorir run` prints of an output's values.
#pragma once
#include <string>

#include "tensorir/runtime/ndarray.h"

namespace tensorir::cli {

// ", min M, max X, mean A, argmax I" for a float32 array, and ", N NaN" when it holds
// NaNs (counted apart, so that where they lie changes nothing); "" for other types.
std::string value_summary(const NDArray &a);

}  // namespace tensorir::cli
