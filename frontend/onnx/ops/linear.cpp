// Gemm and MatMul onto dense, whose weight is [N, K] (the transpose of ONNX's [K, N]): a
// known weight is transposed once, at import; a computed one by a transpose node. A
// MatMul whose B has rank 3 or more is a batch_matmul. Det of small matrices.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "frontend/onnx/ops/ops_util.h"

namespace tensorir::onnx::detail {

namespace {

// The shape of a matrix product by NumPy's rules: a 1-D A is a row and a 1-D B a column,
// each dimension dropped from the result; the leading dimensions broadcast.
std::vector<int64_t> matmul_shape(std::vector<int64_t> as, std::vector<int64_t> bs) {
  TIR_USER_CHECK(!as.empty() && !bs.empty()) << "the operands of a matrix product have rank 1 or more";
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as = {1, as[0]};
  if (b_vec) bs = {bs[0], 1};
  TIR_USER_CHECK(as.back() == bs[bs.size() - 2])
      << "a product of " << shape_str(as) << " and " << shape_str(bs) << ": inner dimensions differ";
  std::string error;
  std::vector<int64_t> out = broadcast_shapes(std::vector<int64_t>(as.begin(), as.end() - 2),
                                              std::vector<int64_t>(bs.begin(), bs.end() - 2), &error);
  TIR_USER_CHECK(error.empty()) << "a product of " << shape_str(as) << " and " << shape_str(bs) << ": " << error;
  if (!a_vec) out.push_back(as[as.size() - 2]);
  if (!b_vec) out.push_back(bs.back());
  return out;
}

}  // namespace

graph::NodeRef numpy_matmul(Context &c, graph::NodeRef a, std::vector<int64_t> as, graph::NodeRef b,
                            std::vector<int64_t> bs) {
  const std::vector<int64_t> out = matmul_shape(as, bs);
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) a = c.make("reshape", {a}, {{"shape", std::vector<int64_t>{1, as[0]}}});
  if (b_vec) b = c.make("reshape", {b}, {{"shape", std::vector<int64_t>{bs[0], 1}}});
  graph::NodeRef y = c.make("batch_matmul", {a, b});
  if (!a_vec && !b_vec) return y;
  return c.make("reshape", {y}, {{"shape", out}});
}

namespace {

// Inputs 0 and 1 (and 2, Gemm's C, when `bias`) of one type: float32, float64 or a 32- or
// 64-bit integer.
void need_product_types(const Context &c, bool bias) {
  const Type t = c.dtype(0);
  if (t != Float(32) && t != Float(64) && t.bits() < 32)
    unsupported("input '" + c.input_name(0) + "' is " + t.str() +
                "; float32, float64 and 32- and 64-bit integers are supported");
  for (size_t i = 1; i < (bias ? 3u : 2u); ++i)
    TIR_USER_CHECK(c.dtype(i) == t) << "input '" << c.input_name(i) << "' is " << c.dtype(i) << " but '"
                                    << c.input_name(0) << "' is " << t;
}

// Input i as dense's weight [N, K]: `transposed` says it is [N, K] already.
graph::NodeRef weight(Context &c, size_t i, bool transposed) {
  if (transposed) return c.node(i);
  if (c.known(i)) return c.constant(host_transpose(c.input(i).known, {1, 0}), "weight");
  return c.make("transpose", {c.node(i)}, {{"axes", std::vector<int64_t>{1, 0}}});
}

// Y = alpha * A' B' + beta * C: dense(A', weight) times alpha (the product scaled, not B:
// alpha B could overflow where alpha A'B' does not), then C as a bias along the columns
// when it is a vector [N] (or [1, N]), else added with broadcasting. Before opset 7 C is
// required, and is [M, N] unless the broadcast attribute is set.
// Gemm with an empty A or B: an empty result, or beta x C (zeros without C) where only
// the summed dimension is empty.
void gemm_of_empty(Context &c, bool legacy) {
  const Attributes &a = c.attrs();
  const std::vector<int64_t> as = c.shape(0), bs = c.shape(1);
  const bool ta = a.i("transA", 0) != 0, tb = a.i("transB", 0) != 0;
  const int64_t m = as[ta ? 1 : 0], k = as[ta ? 0 : 1], n = bs[tb ? 0 : 1];
  TIR_USER_CHECK(bs[tb ? 1 : 0] == k) << "Gemm of " << shape_str(as) << " and " << shape_str(bs)
                                      << ": inner dimensions differ";
  TIR_USER_CHECK(!legacy || c.has_input(2)) << "C is missing (Gemm requires it before opset 11)";
  const std::vector<int64_t> out = {m, n};
  const Type t = c.dtype(0);
  if (m == 0 || n == 0) return empty_output(c, 0, out, t);
  check_host_size(out, t);
  const double beta = a.f("beta", 1.0f);
  if (!c.has_input(2) || beta == 0.0) return c.set_output(0, host_broadcast_to(scalar(0, t), out));
  if (!c.known(2)) unsupported("C '" + c.input_name(2) + "' computed on the host beside an empty A or B");
  c.set_output(0, host_binary(BinaryOp::kMul, host_broadcast_to(c.input(2).known, out), scalar(beta, t)));
}

void gemm(Context &c, bool legacy) {
  need_product_types(c, c.has_input(2));
  TIR_USER_CHECK(c.rank(0) == 2 && c.rank(1) == 2) << "Gemm takes 2-D A and B";
  const Attributes &a = c.attrs();
  // Integers are scaled in their type: a fraction would be cut, and a value outside the
  // type's range has no conversion.
  const Type t = c.dtype(0);
  for (const char *s : {"alpha", "beta"}) {
    const double v = a.f(s, 1.0f);
    const double top = std::ldexp(1.0, t.bits() - (t.is_uint() ? 0 : 1)), bottom = t.is_uint() ? 0.0 : -top;
    if (!t.is_float() && !(v == std::floor(v) && v >= bottom && v < top)) {
      std::ostringstream why;
      why << s << " = " << v << " on " << t << " inputs, which are scaled in their type: only whole numbers that "
          << t << " holds are supported";
      unsupported(why.str());
    }
  }
  if (element_count(c.shape(0)) == 0 || element_count(c.shape(1)) == 0)
    return gemm_of_empty(c, legacy);
  graph::NodeRef x = c.node(0);
  if (a.i("transA", 0)) x = c.make("transpose", {x}, {{"axes", std::vector<int64_t>{1, 0}}});
  const graph::NodeRef w = weight(c, 1, a.i("transB", 0) != 0);
  const double alpha = a.f("alpha", 1.0f), beta = a.f("beta", 1.0f);
  TIR_USER_CHECK(!legacy || c.has_input(2)) << "C is missing (Gemm requires it before opset 11)";
  const bool plain = !c.has_input(2) || beta == 0.0;
  if (plain && alpha == 1.0) return void(c.output(0, "dense", {x, w}));
  graph::NodeRef y = c.make("dense", {x, w});
  if (alpha != 1.0) {
    const std::vector<graph::NodeRef> scaled = {y, c.constant(scalar(alpha, t), "alpha")};
    if (plain) return void(c.output(0, "multiply", scaled));
    y = c.make("multiply", scaled);
  }
  const int64_t n = c.graph_node(y).shape[1];
  if (legacy && a.i("broadcast", 0) == 0) {
    TIR_USER_CHECK(c.shape(2) == c.graph_node(y).shape)
        << "C " << shape_str(c.shape(2)) << " is not the result's shape " << shape_str(c.graph_node(y).shape)
        << " and broadcast is not set";
  }
  const std::vector<int64_t> &cs = c.shape(2);
  const bool vector = cs == std::vector<int64_t>{n} || cs == std::vector<int64_t>{1, n};
  graph::NodeRef bias;
  if (c.known(2)) {
    NDArray b = c.input(2).known;
    if (beta != 1.0) b = host_binary(BinaryOp::kMul, b, scalar(beta, b.dtype()));
    if (vector) b = host_reshape(b, {n});
    bias = beta == 1.0 && !vector ? c.node(2) : c.constant(b, "bias");
  } else {
    bias = c.node(2);
    if (beta != 1.0) bias = c.make("multiply", {bias, c.constant(scalar(beta, c.dtype(2)), "beta")});
    if (vector && cs.size() == 2) bias = c.make("reshape", {bias}, {{"shape", std::vector<int64_t>{n}}});
  }
  if (vector)
    c.output(0, "bias_add", {y, bias}, {{"axis", int64_t{1}}});
  else
    c.output(0, "add", {y, bias});
}

// MatMul where B has rank 3 or more: batch_matmul, the leading dimensions broadcast. A
// 1-D A is a row [1, K] whose dimension is dropped from the result.
void batch_matmul(Context &c) {
  const std::vector<int64_t> as = c.shape(0), bs = c.shape(1);
  const int64_t k = as.back();
  TIR_USER_CHECK(bs[bs.size() - 2] == k) << "MatMul of " << shape_str(as) << " and " << shape_str(bs)
                                         << ": inner dimensions differ";
  std::string error;
  const std::vector<int64_t> batch = broadcast_shapes(std::vector<int64_t>(as.begin(), as.end() - std::min<size_t>(as.size(), 2)),
                                                      std::vector<int64_t>(bs.begin(), bs.end() - 2), &error);
  TIR_USER_CHECK(error.empty()) << "MatMul of " << shape_str(as) << " and " << shape_str(bs) << ": " << error;
  graph::NodeRef a = c.node(0);
  if (as.size() == 1) a = c.make("reshape", {a}, {{"shape", std::vector<int64_t>{1, k}}});
  if (as.size() != 1) return void(c.output(0, "batch_matmul", {a, c.node(1)}));
  std::vector<int64_t> out = batch;
  out.push_back(bs.back());
  graph::NodeRef y = c.make("batch_matmul", {a, c.node(1)});
  c.output(0, "reshape", {y}, {{"shape", out}});
}

// MatMul with an empty operand: an empty result, or zeros where only the summed
// dimension is empty (sums of no products).
void matmul_of_empty(Context &c) {
  const std::vector<int64_t> out = matmul_shape(c.shape(0), c.shape(1));
  if (element_count(out) == 0) return empty_output(c, 0, out, c.dtype(0));
  c.set_output(0, host_broadcast_to(scalar(0, c.dtype(0)), out));
}

// MatMul with NumPy semantics where B is 2-D (or 1-D): A's leading dimensions are
// folded into rows for dense and restored after.
void matmul(Context &c) {
  need_product_types(c, false);
  if (element_count(c.shape(0)) == 0 || element_count(c.shape(1)) == 0)
    return matmul_of_empty(c);
  const std::vector<int64_t> as = c.shape(0), bs = c.shape(1);
  TIR_USER_CHECK(!as.empty() && !bs.empty()) << "MatMul of " << shape_str(as) << " and " << shape_str(bs)
                                             << ": the operands of a MatMul have rank 1 or more";
  if (bs.size() > 2) return batch_matmul(c);
  const int64_t k = as.back();
  TIR_USER_CHECK(bs[0] == k) << "MatMul of " << shape_str(as) << " and " << shape_str(bs)
                             << ": inner dimensions differ";
  // B [K] is a weight of one row; B [K, N] is transposed.
  graph::NodeRef w;
  if (bs.size() == 1) {
    w = c.known(1) ? c.constant(host_reshape(c.input(1).known, {1, k}), "weight")
                   : c.make("reshape", {c.node(1)}, {{"shape", std::vector<int64_t>{1, k}}});
  } else {
    w = weight(c, 1, false);
  }
  const int64_t n = bs.size() == 1 ? 1 : bs[1];
  std::vector<int64_t> out(as.begin(), as.end() - 1);  // A's leading dimensions, then N
  if (bs.size() == 2) out.push_back(n);
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < as.size(); ++i) rows *= as[i];
  graph::NodeRef x = c.node(0);
  if (as.size() != 2) x = c.make("reshape", {x}, {{"shape", std::vector<int64_t>{rows, k}}});
  if (out == std::vector<int64_t>{rows, n}) return void(c.output(0, "dense", {x, w}));
  graph::NodeRef y = c.make("dense", {x, w});
  c.output(0, "reshape", {y}, {{"shape", out}});
}

// Det of [..., M, M] for M up to 3, written out from the matrices' elements (the
// Leibniz formula: 1, 2 and 6 products).
void det(Context &c) {
  need_float(c, 0);
  const std::vector<int64_t> s = c.shape(0);
  const size_t r = s.size();
  TIR_USER_CHECK(r >= 2 && s[r - 1] == s[r - 2]) << "Det takes square matrices [..., M, M], not " << shape_str(s);
  const int64_t m = s[r - 1];
  if (m > 3) unsupported("matrices of " + std::to_string(m) + "x" + std::to_string(m) + " (3x3 at most)");
  const std::vector<int64_t> batch(s.begin(), s.end() - 2);
  // Element (i, j) of every matrix, of shape batch.
  auto at = [&](int64_t i, int64_t j) {
    std::vector<int64_t> begin(r, 0), end = s;
    begin[r - 2] = i;
    begin[r - 1] = j;
    end[r - 2] = i + 1;
    end[r - 1] = j + 1;
    graph::NodeRef e = c.make("slice", {c.node(0)}, {{"begin", begin}, {"end", end}});
    return c.make("reshape", {e}, {{"shape", batch}});
  };
  auto mul = [&](graph::NodeRef a, graph::NodeRef b) { return c.make("multiply", {a, b}); };
  if (m == 1) return void(c.output(0, "reshape", {c.node(0)}, {{"shape", batch}}));
  if (m == 2) return void(c.output(0, "subtract", {mul(at(0, 0), at(1, 1)), mul(at(0, 1), at(1, 0))}));
  // Even permutations of the columns add, odd ones subtract.
  const int64_t perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
  graph::NodeRef sum[2];
  for (int p = 0; p < 6; ++p) {
    graph::NodeRef t = mul(mul(at(0, perms[p][0]), at(1, perms[p][1])), at(2, perms[p][2]));
    sum[p / 3] = p % 3 == 0 ? t : c.make("add", {sum[p / 3], t});
  }
  c.output(0, "subtract", {sum[0], sum[1]});
}

const bool registered = [] {
  register_converter({"Gemm", kMinOpset, 6, nullptr, [](Context &c) { gemm(c, true); }});
  register_converter({"Gemm", 7, kLatest, nullptr, [](Context &c) { gemm(c, false); }});
  register_converter({"MatMul", kMinOpset, kLatest, nullptr, matmul});
  register_converter({"Det", 11, kLatest, nullptr, det});
  return true;
}();

}  // namespace

}  // namespace tensorir::onnx::detail
