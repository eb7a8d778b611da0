// The stages of conv2d_winograd's result (ops/winograd.h), found from the result back;
// shared by its CPU and GPU compute schedules.
#pragma once
#include <string>

#include "tensorir/error.h"
#include "tensorir/te/tensor.h"

namespace tensorir::ops::detail {

struct WinogradStages {
  Tensor W1, V, M, Z, O;  // input transform rows, input transform, product, output columns, output
};

// `who` names the schedule in the error for a tensor that is not conv2d_winograd's.
inline WinogradStages winograd_stages(const Tensor &conv, const std::string &who) {
  auto compute_of = [](const Tensor &t) { return t.op().as<ComputeOpNode>(); };
  const ComputeOpNode *c = compute_of(conv);
  TIR_USER_CHECK(c && c->tag == "conv2d_winograd")
      << who << ": tensor " << conv.name() << " is not the output of conv2d_winograd";
  WinogradStages s;
  s.O = c->input_tensors()[0];
  s.Z = compute_of(s.O)->input_tensors()[0];
  s.M = compute_of(s.Z)->input_tensors()[0];
  s.V = compute_of(s.M)->input_tensors()[0];
  s.W1 = compute_of(s.V)->input_tensors()[0];
  return s;
}

}  // namespace tensorir::ops::detail
