// "webgl" schedule of conv2d_winograd (winograd.h): each transform and the product a
// fragment pass of its own (their stages are tagged, not injective, so schedule_generic
// keeps them), the result's gather inlined into the element-wise tail.
#include "schedule_fragment.h"
#include "tensorir/ops/schedule.h"
#include "tensorir/ops/winograd.h"

namespace tensorir::ops {

Schedule schedule_conv2d_winograd_fragment(const Tensor &conv, const Tensor &out, const Target &target,
                                           autotune::Config *cfg) {
  const auto *c = conv.op().as<ComputeOpNode>();
  TIR_USER_CHECK(c && c->tag == "conv2d_winograd")
      << "schedule_conv2d_winograd_fragment: tensor " << conv.name() << " is not the output of conv2d_winograd";
  // Measured on llvmpipe (ResNet-18's layers): separate passes for the two halves of each
  // transform beat computing either half where the other reads it, which repeats it
  // alpha times per element.
  Schedule s = schedule_generic({out});
  if (!conv.op().same_as(out.op())) s[conv].compute_inline();
  if (!cfg) return s;
  // The direct convolution's knobs: its reduction is C x 9 long, and the texels of a row
  // share its weights (as the product's share U) where its result, this one's shape, has
  // rows of whole texels.
  const Tensor O = c->input_tensors()[0];
  const Tensor Z = O.op().as<ComputeOpNode>()->input_tensors()[0];
  const Tensor M = Z.op().as<ComputeOpNode>()->input_tensors()[0];
  const auto *gemm = M.op().as<ComputeOpNode>();
  TIR_ASSERT(gemm && gemm->reduce_axis.size() == 1) << "conv2d_winograd's product has one reduction";
  const int64_t *channels = as_const_int(gemm->reduce_axis[0]->dom.extent);
  TIR_ASSERT(channels) << "conv2d_winograd's shapes are constant";
  const int64_t block = target.caps().texture_channel_block;
  const int64_t *last = as_const_int(conv.shape().back());
  define_fragment_knobs(*cfg, target, *channels * 9, block > 0 && last && *last % block == 0);
  return s;
}

}  // namespace tensorir::ops
