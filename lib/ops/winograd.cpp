// Winograd F(m x m, 3 x 3): the Cook-Toom transform matrices, the weight transform and
// the convolution as four tensor stages (input transform, batched product, output
// transform, result layout).
#include "tensorir/ops/winograd.h"

#include <cmath>
#include <functional>

#include "op_util.h"
#include "tensorir/ops/nn.h"

namespace tensorir::ops {

using namespace detail;

namespace {

constexpr int kR = 3;  // the kernel's extent

// The coefficients of prod_q (x - p_q) over `points` but `skip` (-1: none), lowest first.
std::vector<double> product_poly(const std::vector<double> &points, int skip) {
  std::vector<double> c = {1.0};
  for (int q = 0; q < int(points.size()); ++q) {
    if (q == skip) continue;
    std::vector<double> next(c.size() + 1, 0.0);
    for (size_t i = 0; i < c.size(); ++i) {
      next[i + 1] += c[i];
      next[i] -= points[size_t(q)] * c[i];
    }
    c = std::move(next);
  }
  return c;
}

}  // namespace

bool winograd_tile_supported(int m) { return m == 2 || m == 4 || m == 6; }

// Correlation y = C(g)^T d is the transpose of the product of polynomials u(x) g(x):
// evaluating u and g at the points (and infinity, the leading coefficient), multiplying
// and interpolating gives y = E_u^T [(E_g g) . (Interp^T d)], so AT = E_u^T, G = E_g
// and BT = Interp^T, the Lagrange denominators f_j moved from BT into G.
WinogradMatrices winograd_matrices(int m) {
  TIR_USER_CHECK(winograd_tile_supported(m)) << "winograd: tile size m = " << m << " is not supported; use 2, 4 or 6";
  static const double kPoints[] = {0, 1, -1, 2, -2, 0.5, -0.5};
  WinogradMatrices w;
  w.m = m;
  w.alpha = m + kR - 1;
  const int a = w.alpha, n = a - 1;  // n finite points, then infinity
  const std::vector<double> p(kPoints, kPoints + n);
  w.AT.assign(size_t(m * a), 0.0);
  w.G.assign(size_t(a * kR), 0.0);
  w.BT.assign(size_t(a * a), 0.0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) w.AT[size_t(i * a + j)] = std::pow(p[size_t(j)], i);
    w.AT[size_t(i * a + n)] = i == m - 1 ? 1.0 : 0.0;
  }
  for (int j = 0; j < n; ++j) {
    double f = 1.0;
    for (int q = 0; q < n; ++q)
      if (q != j) f *= p[size_t(j)] - p[size_t(q)];
    const double sign = f < 0 ? -1.0 : 1.0;  // positive denominators, as the literature writes them
    for (int k = 0; k < kR; ++k) w.G[size_t(j * kR + k)] = std::pow(p[size_t(j)], k) / f * sign;
    const std::vector<double> lj = product_poly(p, j);
    for (size_t l = 0; l < lj.size(); ++l) w.BT[size_t(j * a) + l] = lj[l] * sign;
  }
  w.G[size_t(n * kR + kR - 1)] = 1.0;
  const std::vector<double> all = product_poly(p, -1);
  for (size_t l = 0; l < all.size(); ++l) w.BT[size_t(n * a) + l] = all[l];
  return w;
}

namespace {

// select(v == 0, f(0), select(v == 1, f(1), ... f(n - 1))): once v's loop is unrolled the
// simplifier keeps one branch.
Expr by_index(const Expr &v, int n, const std::function<Expr(int)> &f) {
  Expr e = f(n - 1);
  for (int i = n - 2; i >= 0; --i) e = select(v == i, f(i), e);
  return e;
}

// sum_l row[l] * term(l) over the nonzero coefficients, +-1 without a multiply.
Expr combine(const double *row, int n, Type t, const std::function<Expr(int)> &term) {
  Expr acc;
  for (int l = 0; l < n; ++l) {
    if (row[l] == 0) continue;
    Expr x = term(l);
    if (row[l] == -1) {
      acc = acc.defined() ? acc - x : make_const(t, 0) - x;
      continue;
    }
    if (row[l] != 1) x = x * make_const(t, row[l]);
    acc = acc.defined() ? acc + x : x;
  }
  return acc.defined() ? acc : make_const(t, 0);
}

// Row `row` (a loop variable) of the rows x cols matrix `mat` times the vector term(0 ..
// cols - 1).
Expr times_row(const std::vector<double> &mat, int rows, int cols, const Expr &row, Type t,
               const std::function<Expr(int)> &term) {
  return by_index(row, rows, [&](int r) { return combine(&mat[size_t(r * cols)], cols, t, term); });
}

}  // namespace

int winograd_panel(int64_t K) {
  for (int b : {32, 16, 8})
    if (K % b == 0) return b;
  return int(K);
}

Tensor winograd_weight_transform(const Tensor &weight, int m, const std::string &name, int panel) {
  const std::string op = "winograd_weight_transform";
  const WinogradMatrices w = winograd_matrices(m);
  TIR_USER_CHECK(weight.ndim() == 4 || weight.ndim() == 6)
      << op << ": weight " << weight.name() << " must be OIHW [K][C][3][3] or OIHW<ci>i<co>o [K/co][C/ci][3][3][ci][co]"
      << " but has " << weight.ndim() << " dimensions";
  const std::vector<int64_t> s = const_shape(weight, op);
  const bool packed = s.size() == 6;
  TIR_USER_CHECK(s[2] == kR && s[3] == kR) << op << ": weight " << weight.name() << " " << shape_str(s)
                                           << " is not a 3x3 kernel; Winograd F(m, 3) needs one";
  const int64_t K = packed ? s[0] * s[5] : s[0], C = packed ? s[1] * s[4] : s[1];
  const int ci = packed ? int(s[4]) : 1, co = packed ? int(s[5]) : 1;
  auto g = [&](Expr k, Expr c, Expr r, Expr q) {
    return packed ? weight(k / co, c / ci, r, q, c % ci, k % co) : weight(k, c, r, q);
  };
  const Type t = weight.dtype();
  // G as a stage of its own (computed once per call), read by the reduction below.
  Tensor G = compute(
      to_exprs({w.alpha, kR}),
      [&](Var j, Var k) {
        return by_index(j, w.alpha,
                        [&](int jj) { return by_index(k, kR, [&](int kk) { return make_const(t, w.G[size_t(jj * kR + kk)]); }); });
      },
      name + "_G", "winograd_matrix");
  IterVar r = reduce_axis({0, kR}, "r"), q = reduce_axis({0, kR}, "q");
  TIR_USER_CHECK(panel >= 0 && (panel == 0 || K % panel == 0))
      << op << ": panel " << panel << " does not divide the " << K << " output channels of weight " << weight.name();
  const int b = panel ? panel : winograd_panel(K);
  return compute(
      to_exprs({w.alpha, w.alpha, K / b, C, b}),
      [&](Var i, Var j, Var kb, Var c, Var ko) {
        return sum(G(i, r) * g(kb * b + ko, c, r, q) * G(j, q), {r, q});
      },
      name, "winograd_weight");
}

Tensor conv2d_winograd(const Tensor &data, const Tensor &U, std::array<int, 2> padding, int m, int out_block,
                       const std::string &name, int channel_block) {
  const std::string op = "conv2d_winograd";
  const WinogradMatrices w = winograd_matrices(m);
  const int alpha = w.alpha;
  TIR_USER_CHECK(data.ndim() == 4 || data.ndim() == 5)
      << op << ": data " << data.name() << " must be NCHW (4 dimensions) or NCHW<c>c (5 dimensions) but has "
      << data.ndim();
  check_ndim(U, 5, op, "the transformed weight [alpha][alpha][K/b][C][b]");
  check_same_dtype(data, U, op);
  const std::vector<int64_t> d = const_shape(data, op), u = const_shape(U, op);
  const bool blocked = d.size() == 5;
  const int ci = blocked ? int(d[4]) : 1;
  const int64_t N = d[0], C = blocked ? d[1] * d[4] : d[1], H = d[2], W = d[3], K = u[2] * u[4];
  const int b = int(u[4]);
  TIR_USER_CHECK(u[0] == alpha && u[1] == alpha)
      << op << ": weight " << U.name() << " " << shape_str(u) << " is transformed for another tile size: m = " << m
      << " needs [" << alpha << "][" << alpha << "][K/b][C][b] (winograd_weight_transform with the same m)";
  TIR_USER_CHECK(u[3] == C) << op << ": weight " << U.name() << " " << shape_str(u) << " has " << u[3]
                            << " input channels but data " << data.name() << " has " << C;
  TIR_USER_CHECK(padding[0] >= 0 && padding[1] >= 0) << op << ": padding must not be negative";
  const int ph = padding[0], pw = padding[1];
  const int64_t OH = H + 2 * ph - (kR - 1), OW = W + 2 * pw - (kR - 1);
  TIR_USER_CHECK(OH > 0 && OW > 0) << op << ": the 3x3 kernel is larger than the padded input " << data.name() << " "
                                   << shape_str(d);
  TIR_USER_CHECK(out_block >= 0 && (out_block == 0 || K % out_block == 0))
      << op << ": out_block " << out_block << " does not divide the " << K << " output channels";
  const int cb = channel_block;
  TIR_USER_CHECK(cb >= 0 && (cb == 0 || (C % cb == 0 && K % cb == 0 && b == cb)))
      << op << ": channel_block " << cb << " must divide the " << C << " input and " << K
      << " output channels and be the panel of weight " << U.name() << " (" << b
      << "; winograd_weight_transform with panel = " << cb << ")";
  const int64_t TH = (OH + m - 1) / m, TW = (OW + m - 1) / m, T = N * TH * TW;
  const Type t = data.dtype();
  const int th = int(TH), tw = int(TW), hh = int(H), ww = int(W);

  // Input element (channel c, row y, column x) of the tile's image, zero outside.
  auto read = [&](Expr n, Expr c, Expr y, Expr x) {
    Expr cy = clamp_index(y, H), cx = clamp_index(x, W);
    Expr v = blocked ? data(n, c / ci, cy, cx, c % ci) : data(n, c, cy, cx);
    return select(y >= 0 && y < hh && x >= 0 && x < ww, v, make_const(t, 0));
  };
  // The stages' shapes and element access: [alpha][alpha][T][channels], or with cb
  // [alpha][alpha][channels/cb][T][cb].
  auto shape = [&](int rows, int cols, int64_t channels) {
    return cb ? to_exprs({rows, cols, channels / cb, T, cb}) : to_exprs({rows, cols, T, channels});
  };
  auto at = [&](const Tensor &s, Expr i, Expr j, Expr tile, Expr ch) {
    return cb ? s(i, j, ch / cb, tile, ch % cb) : s(i, j, tile, ch);
  };
  // fn(i, j, tile, channel) over a stage's axes.
  auto stage = [&](int rows, int cols, int64_t channels, const std::function<Expr(Var, Var, Expr, Expr)> &fn,
                   const std::string &stage_name, const std::string &tag) {
    if (cb)
      return compute(
          shape(rows, cols, channels),
          [&](Var i, Var j, Var blk, Var tile, Var lane) { return fn(i, j, tile, blk * cb + lane); }, stage_name, tag);
    return compute(
        shape(rows, cols, channels), [&](Var i, Var j, Var tile, Var ch) { return fn(i, j, tile, ch); }, stage_name,
        tag);
  };
  // B^T d B, its rows first: W1[i][b] = sum_a BT[i][a] d[a][b].
  Tensor W1 = stage(
      alpha, alpha, C,
      [&](Var i, Var b, Expr tile, Expr c) {
        Expr n = tile / (th * tw), y0 = tile / tw % th * m - ph, x0 = tile % tw * m - pw;
        return times_row(w.BT, alpha, alpha, i, t, [&](int a) { return read(n, c, y0 + a, x0 + b); });
      },
      name + "_input_rows", "winograd_input_rows");
  Tensor V = stage(
      alpha, alpha, C,
      [&](Var i, Var j, Expr tile, Expr c) {
        return times_row(w.BT, alpha, alpha, j, t, [&](int b) { return at(W1, i, b, tile, c); });
      },
      name + "_input", "winograd_input");
  IterVar rc = reduce_axis({0, int(C)}, "rc");
  Tensor M = stage(
      alpha, alpha, K,
      [&](Var i, Var j, Expr tile, Expr k) { return sum(at(V, i, j, tile, rc) * U(i, j, k / b, rc, k % b), {rc}); },
      name + "_gemm", "winograd_gemm");
  // A^T M A, its columns first: Z[a][x] = sum_b M[a][b] AT[x][b].
  Tensor Z = stage(
      alpha, m, K,
      [&](Var a, Var x, Expr tile, Expr k) {
        return times_row(w.AT, m, alpha, x, t, [&](int b) { return at(M, a, b, tile, k); });
      },
      name + "_output_cols", "winograd_output_cols");
  Tensor O = stage(
      m, m, K,
      [&](Var y, Var x, Expr tile, Expr k) {
        return times_row(w.AT, m, alpha, y, t, [&](int a) { return at(Z, a, x, tile, k); });
      },
      name + "_output", "winograd_output");
  auto result = [&](Expr n, Expr k, Expr y, Expr x) { return at(O, y % m, x % m, (n * th + y / m) * tw + x / m, k); };
  if (out_block)
    return compute(
        to_exprs({N, K / out_block, OH, OW, out_block}),
        [&](Var n, Var kb, Var y, Var x, Var ko) { return result(n, kb * out_block + ko, y, x); }, name, op);
  return compute(
      to_exprs({N, K, OH, OW}), [&](Var n, Var k, Var y, Var x) { return result(n, k, y, x); }, name, op);
}

}  // namespace tensorir::ops
