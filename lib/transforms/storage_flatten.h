// Tensor-level statements become flat buffer accesses.
#pragma once
#include <vector>

#include "tensorir/te/tensor.h"

namespace tensorir {

struct BufferBinding {
  Tensor tensor;
  Var handle;  // the argument's buffer variable
};

// Realize -> Allocate, Provide -> Store, TensorLoad -> Load with row-major indices.
// Tensors in `args` use the argument buffers; reading or writing any other tensor that
// has no Realize is an error naming it.
Stmt storage_flatten(const Stmt &s, const std::vector<BufferBinding> &args, const std::string &func_name);

}  // namespace tensorir
