// Tensor intrinsics: a hand-written implementation (an extern micro-kernel or an IR body)
// of a small computation, declared as a tensor expression so that tensorize() can check
// that a loop nest computes exactly that and replace it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensorir/te/tensor.h"

namespace tensorir {

// The part of a tensor an intrinsic works on, as its implementation sees it.
struct TensorRegion {
  std::string name;
  Type dtype;
  Expr address;               // Handle: the address of the region's first element
  std::vector<Expr> strides;  // elements between neighbours, one per intrinsic dimension
};

using IntrinBody = std::function<Stmt(const std::vector<TensorRegion> &inputs, const TensorRegion &output)>;

struct TensorIntrinNode : Object {
  std::string name;
  Tensor output;               // a compute over placeholders, with constant shape
  std::vector<Tensor> inputs;  // its placeholders, in the order the body reads them
  IntrinBody body;             // computes the whole output region
  IntrinBody reset;            // reductions split around the intrinsic: set the output to the identity
  IntrinBody update;           // ... and accumulate one step into it
};
using TensorIntrin = Ref<const TensorIntrinNode>;

// Declares an intrinsic computing `output` (a compute over placeholders only). For a
// reduction whose loops continue outside the tensorized axis, give reset and update too.
TensorIntrin decl_tensor_intrin(const Tensor &output, IntrinBody body, const std::string &name,
                                IntrinBody reset = nullptr, IntrinBody update = nullptr);

// The address of element `indices` of the tensor being read or written (for intrinsic bodies
// built by hand) and a call to an extern C function as a statement.
Stmt call_extern_stmt(const std::string &function, std::vector<Expr> args);

}  // namespace tensorir
