// Max, average and global average pooling over (H, W) of NCHW tensors and of blocked
// NCHW<c>c ones, whose fifth dimension rides along like the channel.
#include "op_util.h"
#include "tensorir/ops/nn.h"
#include "tensorir/ops/transform.h"

namespace tensorir::ops {

using namespace detail;

namespace {

struct PoolShape {
  int64_t N, C, H, W, OH, OW;
  std::vector<int64_t> out;  // the result's shape, blocked like the input
};

void check_pool_ndim(const Tensor &x, const std::string &op) {
  TIR_USER_CHECK(x.ndim() == 4 || x.ndim() == 5) << op << ": tensor " << x.name()
                                                 << " must be NCHW (4 dimensions) or blocked NCHW<c>c (5) but has "
                                                 << x.ndim() << " dimensions";
}

// An average of integers would be rounded down and its sum could wrap in the element type.
void check_float_average(const Tensor &x, const std::string &op) {
  TIR_USER_CHECK(x.dtype().is_float()) << op << ": " << x.name() << " is " << x.dtype() << "; " << op
                                       << " takes float tensors (cast the input to float32 first)";
}

// The input index that output index `v` reads at window offset (ry, rx).
std::vector<Expr> window_index(const std::vector<Var> &v, std::array<int, 2> strides, Expr ry, Expr rx) {
  std::vector<Expr> idx(v.begin(), v.end());
  idx[2] = v[2] * strides[0] + ry;
  idx[3] = v[3] * strides[1] + rx;
  return idx;
}

PoolShape check_pool(const Tensor &x, std::array<int, 2> pool, std::array<int, 2> strides,
                     std::array<int, 2> padding, const std::string &op) {
  check_pool_ndim(x, op);
  const std::vector<int64_t> s = const_shape(x, op);
  for (int i = 0; i < 2; ++i) {
    TIR_USER_CHECK(pool[i] > 0 && strides[i] > 0 && padding[i] >= 0)
        << op << " of " << x.name() << ": pool size and strides must be positive and padding not negative";
    TIR_USER_CHECK(padding[i] < pool[i]) << op << " of " << x.name() << ": padding " << padding[i]
                                         << " must be smaller than the pool size " << pool[i];
  }
  PoolShape p{s[0], s[1], s[2], s[3], 0, 0, s};
  p.OH = (p.H + 2 * padding[0] - pool[0]) / strides[0] + 1;
  p.OW = (p.W + 2 * padding[1] - pool[1]) / strides[1] + 1;
  p.out[2] = p.OH;
  p.out[3] = p.OW;
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
      to_exprs(p.out), [&](const std::vector<Var> &v) { return max(P(window_index(v, strides, ry, rx)), {ry, rx}); },
      name, "max_pool2d");
}

Tensor avg_pool2d(const Tensor &x, std::array<int, 2> pool, std::array<int, 2> strides, std::array<int, 2> padding,
                  bool count_include_pad, const std::string &name) {
  check_float_average(x, "avg_pool2d");
  const PoolShape p = check_pool(x, pool, strides, padding, "avg_pool2d");
  const int ph = padding[0], pw = padding[1];
  Tensor P = ph || pw ? pad(x, {0, 0, ph, pw}, {0, 0, ph, pw}, 0.0, name + "_pad") : x;
  IterVar ry = reduce_axis({0, pool[0]}, "ry"), rx = reduce_axis({0, pool[1]}, "rx");
  Tensor S = compute(
      to_exprs(p.out), [&](const std::vector<Var> &v) { return sum(P(window_index(v, strides, ry, rx)), {ry, rx}); },
      name + "_sum", "avg_pool2d_sum");
  const Type t = x.dtype();
  const int H = static_cast<int>(p.H), W = static_cast<int>(p.W);
  return compute(
      S.shape(),
      [&](const std::vector<Var> &v) {
        const Expr sum = S(std::vector<Expr>(v.begin(), v.end()));
        if (count_include_pad) return sum / make_const(t, pool[0] * pool[1]);
        // The window's rows and columns that fall inside the input.
        Expr y0 = v[2] * strides[0] - ph, x0 = v[3] * strides[1] - pw;
        Expr rows = min(y0 + pool[0], H) - max(y0, 0), cols = min(x0 + pool[1], W) - max(x0, 0);
        return sum / cast(t, rows * cols);
      },
      name, kInjective);
}

Tensor global_avg_pool2d(const Tensor &x, const std::string &name) {
  check_pool_ndim(x, "global_avg_pool2d");
  check_float_average(x, "global_avg_pool2d");
  const std::vector<int64_t> s = const_shape(x, "global_avg_pool2d");
  IterVar ry = reduce_axis({0, static_cast<int>(s[2])}, "ry"), rx = reduce_axis({0, static_cast<int>(s[3])}, "rx");
  std::vector<int64_t> out = s;
  out[2] = out[3] = 1;
  Tensor S = compute(
      to_exprs(out),
      [&](const std::vector<Var> &v) {
        std::vector<Expr> idx(v.begin(), v.end());
        idx[2] = ry;
        idx[3] = rx;
        return sum(x(idx), {ry, rx});
      },
      name + "_sum", "global_avg_pool2d_sum");
  const Type t = x.dtype();
  return compute(
      S.shape(),
      [&](const std::vector<Var> &v) {
        return S(std::vector<Expr>(v.begin(), v.end())) / make_const(t, static_cast<double>(s[2] * s[3]));
      },
      name, kInjective);
}

}  // namespace tensorir::ops
