// Declaring tensor intrinsics and marking a stage's loops for tensorize.
#include "tensorir/te/tensor_intrin.h"

#include <algorithm>

#include "tensorir/te/schedule.h"

namespace tensorir {

TensorIntrin decl_tensor_intrin(const Tensor &output, IntrinBody body, const std::string &name,
                                IntrinBody reset, IntrinBody update) {
  TIR_USER_CHECK(output.defined()) << "decl_tensor_intrin '" << name << "': undefined output tensor";
  auto *c = output.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c) << "decl_tensor_intrin '" << name << "': the output must be a computed tensor";
  TIR_USER_CHECK(c->num_outputs() == 1) << "decl_tensor_intrin '" << name << "': only single-output computes are supported";
  TIR_USER_CHECK(body) << "decl_tensor_intrin '" << name << "': give the implementation body";
  for (const Expr &e : c->shape)
    TIR_USER_CHECK(as_const_int(e)) << "decl_tensor_intrin '" << name << "': the shape must be constant";
  for (const IterVar &r : c->reduce_axis)
    TIR_USER_CHECK(as_const_int(r.dom().extent) && is_const_int(r.dom().min, 0))
        << "decl_tensor_intrin '" << name << "': reduction axis '" << r.name() << "' must be [0, constant)";
  auto *n = new TensorIntrinNode();
  n->name = name;
  n->output = output;
  for (const Tensor &t : c->input_tensors()) {
    TIR_USER_CHECK(t.op().as<PlaceholderOpNode>())
        << "decl_tensor_intrin '" << name << "': input '" << t.name() << "' must be a placeholder";
    n->inputs.push_back(t);
  }
  n->body = std::move(body);
  n->reset = std::move(reset);
  n->update = std::move(update);
  return TensorIntrin(n);
}

Stmt call_extern_stmt(const std::string &function, std::vector<Expr> args) {
  return EvaluateNode::make(call_extern(Int(32), function, std::move(args)));
}

Stage &Stage::tensorize(const IterVar &axis, const TensorIntrin &intrin) {
  leaf_index(axis, "tensorize");
  TIR_USER_CHECK(intrin.defined()) << "tensorize on stage '" << n_->op->name << "': undefined intrinsic";
  n_->tensorize_axis = axis;
  n_->tensorize_intrin = intrin;
  return *this;
}

}  // namespace tensorir
