// Neural-network operators as tensor expressions (compute definitions only; the
// schedules that go with them are in ops/schedule.h). Layouts are NCHW for activations
// and OIHW for convolution weights. Shapes must be constant; a mismatch throws
// tensorir::Error naming the tensors involved.
#pragma once
#include <array>
#include <string>

#include "tensorir/te/tensor.h"

namespace tensorir::ops {

struct Conv2dAttrs {
  std::array<int, 2> strides{1, 1};
  std::array<int, 2> padding{0, 0};   // zeros added on both sides of (H, W)
  std::array<int, 2> dilation{1, 1};
  int groups = 1;                     // groups == C: depthwise
  // Packed weights only: 0, every output channel of the weight; else the first this many,
  // the rest zero padding (conv2d_compute_block's whole vectors), and a blocked result in
  // blocks of conv2d_channel_block(out_channels).
  int64_t out_channels = 0;
};

// data [N, C, H, W], weight [K, C / groups, R, S] -> [N, K, OH, OW]. Padding is a
// separate "pad" stage that schedule_generic inlines.
Tensor conv2d(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a, const std::string &name = "conv2d");

// The same convolution (groups == 1) computed through channel-blocked layouts: the padded
// input as [N, C/ci][H][W][ci], the weights as [K/co][C/ci][R][S][ci][co], the result as
// [N][K/co][OH][OW][co], then copied back to NCHW. Use it with schedule_conv2d_llvm,
// whose inner loops run on vectors of `co` output channels.
Tensor conv2d_nchwc(const Tensor &data, const Tensor &weight, const Conv2dAttrs &a,
                    const std::string &name = "conv2d");

// The channel block conv2d_nchwc uses for a tensor of `channels` channels: the largest
// of 16, 8, 4, 2, 1 that divides it, or `channels` itself when at most 16.
int conv2d_channel_block(int64_t channels);

// The block of output channels a packed CPU convolution of `out_channels` computes on
// (its weight's co) for vectors of `vector_lanes` float32 lanes: conv2d_channel_block's,
// or a whole vector where that block is half of one (AVX-512's 16 lanes, 1000 channels in
// blocks of 8), its weight zero-padded to whole vectors (Conv2dAttrs::out_channels) and
// its result still in blocks of 8, for more than 16 channels. The padding costs 8 /
// out_channels of the work (a quarter at 24), which twice the lanes and a tile of two
// vectors more than pay for: on one core, 1.6x faster at 24 and 40 channels (mobilenet_v2,
// efficientnet_b0), 1.7x at 1000 (squeezenet1_1's classifier).
int conv2d_compute_block(int64_t out_channels, int vector_lanes);

// conv2d_nchwc from weights packed once beforehand, [K/co][C/ci][R][S][ci][co]
// (layout_transform(weight, "OIHW", "OIHW<ci>i<co>o") with ci, co from
// conv2d_channel_block), so the kernel reads them as they are. `data` is NCHW (packed
// into blocks of ci, with the padding, inside the kernel, as conv2d_nchwc does) or
// already blocked, NCHW<ci>c [N][C/ci][H][W][ci] (only padded). The result is NCHW, or
// with `blocked_out` NCHW<co>c [N][K/co][OH][OW][co]. groups must be 1. Use it with
// schedule_conv2d_llvm as conv2d_nchwc.
Tensor conv2d_nchwc_packed(const Tensor &data, const Tensor &packed_weight, const Conv2dAttrs &a,
                           bool blocked_out = false, const std::string &name = "conv2d");

// A depthwise convolution (groups = channels) of blocked data NCHW<c>c [N][C/c][H][W][c]
// with weights packed as [C/c][1][R][S][1][c] (layout_transform(weight, "OIHW",
// "OIHW1i<c>o")): the stages of conv2d_nchwc_packed, each tap a vector of c channels.
// The result is NCHW, or with `blocked_out` NCHW<c>c. Use it with schedule_conv2d_llvm.
Tensor depthwise_conv2d_nchwc_packed(const Tensor &data, const Tensor &packed_weight, const Conv2dAttrs &a,
                                     bool blocked_out = false, const std::string &name = "conv2d");

// The convolution of conv2d_nchwc_packed (the same tensors and layouts) as one reduction
// stage that writes the result's layout directly, NCHW or with `blocked_out`
// NCHW<co>c, its padding an injective stage that schedule_generic inlines. For targets
// that compute one stage per pass, such as the fragment shaders of "webgl": in blocks of
// 4 channels, the four outputs of a texel are four output channels that share every
// read of the data.
Tensor conv2d_packed_direct(const Tensor &data, const Tensor &packed_weight, const Conv2dAttrs &a,
                            bool blocked_out = false, const std::string &name = "conv2d");

// data [N, K], weight [M, K] -> [N, M] (data times weight transposed).
Tensor dense(const Tensor &data, const Tensor &weight, const std::string &name = "dense");
// dense with the weight packed in panels of `block` output columns, packed[j / block][k]
// [j % block] = weight[j][k] (pack_dense_weight): a block of columns reads one contiguous
// vector per k. data [N, K], packed [M / block, K, block] -> [N, M].
Tensor dense_packed(const Tensor &data, const Tensor &packed, const std::string &name = "dense");

// Adds bias [data.shape[axis]] along `axis` (negative counts from the end).
Tensor bias_add(const Tensor &data, const Tensor &bias, int axis = 1, const std::string &name = "bias_add");

Tensor relu(const Tensor &x, const std::string &name = "relu");
// min(max(x, lo), hi); relu6 is clip(x, 0, 6).
Tensor clip(const Tensor &x, double lo, double hi, const std::string &name = "clip");
Tensor sigmoid(const Tensor &x, const std::string &name = "sigmoid");
Tensor tanh(const Tensor &x, const std::string &name = "tanh");

// (x - mean) / sqrt(var + eps) * gamma + beta, the four vectors indexed along `axis`.
Tensor batch_norm_inference(const Tensor &x, const Tensor &gamma, const Tensor &beta, const Tensor &mean,
                            const Tensor &var, double eps = 1e-5, int axis = 1,
                            const std::string &name = "batch_norm");

// Pooling over (H, W) of an NCHW tensor, or of a channel-blocked NCHW<c>c one (5
// dimensions, [N][C/c][H][W][c], the result blocked the same way). Output size: (H + 2 * pad - pool) / stride + 1.
// max_pool2d never takes a padding value; avg_pool2d divides by the whole window
// (pool_h * pool_w) when count_include_pad is true, as PyTorch does by default, and by
// the number of elements inside the input otherwise. The averages take float tensors.
Tensor max_pool2d(const Tensor &x, std::array<int, 2> pool_size, std::array<int, 2> strides,
                  std::array<int, 2> padding = {0, 0}, const std::string &name = "max_pool2d");
Tensor avg_pool2d(const Tensor &x, std::array<int, 2> pool_size, std::array<int, 2> strides,
                  std::array<int, 2> padding = {0, 0}, bool count_include_pad = true,
                  const std::string &name = "avg_pool2d");
// [N, C, H, W] -> [N, C, 1, 1], the mean over H and W; [N, C/c, H, W, c] ->
// [N, C/c, 1, 1, c] for a blocked tensor.
Tensor global_avg_pool2d(const Tensor &x, const std::string &name = "global_avg_pool2d");

// exp(x - max) / sum(exp(x - max)) along `axis`, in four stages (max, exp, sum, divide).
Tensor softmax(const Tensor &x, int axis = -1, const std::string &name = "softmax");
// x - max - log(sum(exp(x - max))) along `axis`: the log of softmax without its underflow.
Tensor log_softmax(const Tensor &x, int axis = -1, const std::string &name = "log_softmax");

// A reduction of x over `axes` (negative count from the end; empty: all of them), the
// reduced axes kept as 1 when `keepdims`, else dropped (all dropped: a scalar, shape []).
// `reduction`: "sum", "mean", "max", "min", "prod", "l1" (sum of |x|), "l2" (square root of
// the sum of squares), "sum_square", "log_sum", "log_sum_exp" (as max + log(sum(exp(x -
// max)))). mean, l2, log_sum and log_sum_exp take float tensors.
Tensor reduce(const Tensor &x, const std::string &reduction, const std::vector<int> &axes, bool keepdims,
              const std::string &name = "reduce");
// The index (int64, or `index_type`) of the largest (is_max) or smallest element along
// `axis`: the first one, or the last with `select_last`; the axis kept as 1 when `keepdims`.
// `index_type` must hold the axis's length exactly (an Error names it otherwise): an
// integer type, signed with `select_last`, or a float type for targets that store floats.
Tensor arg_reduce(const Tensor &x, int axis, bool keepdims, bool select_last, bool is_max,
                  const std::string &name = "arg_reduce", Type index_type = Int(64));
// (x - mean) / sqrt(var + eps) * scale + bias, mean and variance over the dimensions from
// `axis` on; scale and bias broadcast to those dimensions (aligned at the right).
Tensor layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, int axis = -1, double eps = 1e-5,
                  const std::string &name = "layer_norm");
// a [..., M, K] times b [..., K, N] -> [..., M, N], the leading (batch) dimensions
// broadcast as NumPy does.
Tensor batch_matmul(const Tensor &a, const Tensor &b, const std::string &name = "batch_matmul");

}  // namespace tensorir::ops
