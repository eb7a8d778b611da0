// Max, average and global average pooling over (H, W) of NCHW tensors.
#include "op_util.h"
#include "tensorir/ops/nn.h"
#include "tensorir/ops/transform.h"

namespace tensorir::ops {

using namespace detail;

namespace {

struct PoolShape {
  int64_t N, C, H, W, OH, OW;
};

PoolShape check_pool(const Tensor &x, std::array<int, 2> pool, std::array<int, 2> strides,
                     std::array<int, 2> padding, const std::string &op) {
  check_ndim(x, 4, op, "NCHW");
  const std::vector<int64_t> s = const_shape(x, op);
  for (int i = 0; i < 2; ++i) {
    TIR_USER_CHECK(pool[i] > 0 && strides[i] > 0 && padding[i] >= 0)
        << op << " of " << x.name() << ": pool size and strides must be positive and padding not negative";
    TIR_USER_CHECK(padding[i] < pool[i]) << op << " of " << x.name() << ": padding " << padding[i]
                                         << " must be smaller than the pool size " << pool[i];
  }
  PoolShape p{s[0], s[1], s[2], s[3], 0, 0};
  p.OH = (p.H + 2 * padding[0] - pool[0]) / strides[0] + 1;
  p.OW = (p.W + 2 * padding[1] - pool[1]) / strides[1] + 1;
  TIR_USER_CHECK(p.OH > 0 && p.OW > 0 && p.H + 2 * padding[0] >= pool[0] && p.W + 2 * padding[1] >= pool[1])
      << op << ": the pool window " << pool[0] << "x" << pool[1] << " is larger than the padded input " << x.name()
      << " " << shape_str(s);
  return p;
}

}  // namespace

Tensor max_pool2d(const Tensor &x, std::array<int, 2> pool, std::array<int, 2> strides, std::array<int, 2> padding,
                  const std::string &name) {
  const PoolShape p = check_pool(x, pool, strides, padding, "max_pool2d");
  const int ph = padding[0], pw = padding[1];
  Tensor P = ph || pw ? pad_with(x, {0, 0, ph, pw}, {0, 0, ph, pw}, min_value(x.dtype()), name + "_pad") : x;
  IterVar ry = reduce_axis({0, pool[0]}, "ry"), rx = reduce_axis({0, pool[1]}, "rx");
  return compute(
      to_exprs({p.N, p.C, p.OH, p.OW}),
      [&](Var n, Var c, Var y, Var xx) { return max(P(n, c, y * strides[0] + ry, xx * strides[1] + rx), {ry, rx}); },
      name, "max_pool2d");
}

Tensor avg_pool2d(const Tensor &x, std::array<int, 2> pool, std::array<int, 2> strides, std::array<int, 2> padding,
                  bool count_include_pad, const std::string &name) {
  const PoolShape p = check_pool(x, pool, strides, padding, "avg_pool2d");
  const int ph = padding[0], pw = padding[1];
  Tensor P = ph || pw ? pad(x, {0, 0, ph, pw}, {0, 0, ph, pw}, 0.0, name + "_pad") : x;
  IterVar ry = reduce_axis({0, pool[0]}, "ry"), rx = reduce_axis({0, pool[1]}, "rx");
  Tensor S = compute(
      to_exprs({p.N, p.C, p.OH, p.OW}),
      [&](Var n, Var c, Var y, Var xx) { return sum(P(n, c, y * strides[0] + ry, xx * strides[1] + rx), {ry, rx}); },
      name + "_sum", "avg_pool2d_sum");
  const Type t = x.dtype();
  const int H = static_cast<int>(p.H), W = static_cast<int>(p.W);
  return compute(
      S.shape(),
      [&](Var n, Var c, Var y, Var xx) {
        if (count_include_pad) return S(n, c, y, xx) / make_const(t, pool[0] * pool[1]);
        // The window's rows and columns that fall inside the input.
        Expr y0 = y * strides[0] - ph, x0 = xx * strides[1] - pw;
        Expr rows = min(y0 + pool[0], H) - max(y0, 0), cols = min(x0 + pool[1], W) - max(x0, 0);
        return S(n, c, y, xx) / cast(t, rows * cols);
      },
      name, kInjective);
}

Tensor global_avg_pool2d(const Tensor &x, const std::string &name) {
  check_ndim(x, 4, "global_avg_pool2d", "NCHW");
  const std::vector<int64_t> s = const_shape(x, "global_avg_pool2d");
  IterVar ry = reduce_axis({0, static_cast<int>(s[2])}, "ry"), rx = reduce_axis({0, static_cast<int>(s[3])}, "rx");
  Tensor S = compute(
      to_exprs({s[0], s[1], 1, 1}), [&](Var n, Var c, Var, Var) { return sum(x(n, c, ry, rx), {ry, rx}); },
      name + "_sum", "global_avg_pool2d_sum");
  const Type t = x.dtype();
  return compute(
      S.shape(),
      [&](Var n, Var c, Var y, Var xx) { return S(n, c, y, xx) / make_const(t, static_cast<double>(s[2] * s[3])); },
      name, kInjective);
}

}  // namespace tensorir::ops
