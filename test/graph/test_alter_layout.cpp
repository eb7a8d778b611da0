// Channel-blocked layouts: ops::layout_transform and conv2d_nchwc_packed against naive
// loops, the alter_conv_layout pass's rewrite of a small graph, and models built with it
// against the same models built without it and against the reference ResNet-18.
#include <tensorir/build.h>
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/graph/passes.h>
#include <tensorir/ops/nn.h>
#include <tensorir/ops/schedule.h>
#include <tensorir/ops/transform.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "graph/graph_test_util.h"
#include "reference/resnet18_reference.h"

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

NDArray rnd(const std::vector<int64_t> &shape, uint64_t seed, double lo = -1, double hi = 1) {
  return NDArray::random(shape, Float(32), seed, lo, hi);
}

// Runs `out` computed from `ins` under schedule `s` on "llvm".
NDArray run_op(const Schedule &s, const std::vector<Tensor> &ins, const Tensor &out,
               const std::vector<NDArray> &values) {
  std::vector<BuildArg> args(ins.begin(), ins.end());
  args.emplace_back(out);
  Module m = build(s, args, "llvm", "k");
  std::vector<int64_t> shape;
  for (const Expr &e : out.shape()) shape.push_back(*as_const_int(e));
  NDArray result = NDArray::empty(shape, out.dtype(), Device::cpu());
  std::vector<Arg> call(values.begin(), values.end());
  call.emplace_back(result);
  m("k").call(call);
  return result;
}

struct Conv {
  int N, C, H, W, K, R, S, stride, pad;
  int OH() const { return (H + 2 * pad - R) / stride + 1; }
  int OW() const { return (W + 2 * pad - S) / stride + 1; }
  ops::Conv2dAttrs attrs() const {
    ops::Conv2dAttrs a;
    a.strides = {stride, stride};
    a.padding = {pad, pad};
    return a;
  }
};

// NCHW convolution by naive loops, in double.
std::vector<float> conv_ref(const Conv &p, const std::vector<float> &in, const std::vector<float> &w) {
  std::vector<float> out(size_t(p.N) * p.K * p.OH() * p.OW());
  for (int n = 0; n < p.N; ++n)
    for (int k = 0; k < p.K; ++k)
      for (int y = 0; y < p.OH(); ++y)
        for (int x = 0; x < p.OW(); ++x) {
          double acc = 0;
          for (int c = 0; c < p.C; ++c)
            for (int r = 0; r < p.R; ++r)
              for (int s = 0; s < p.S; ++s) {
                const int iy = y * p.stride + r - p.pad, ix = x * p.stride + s - p.pad;
                if (iy < 0 || iy >= p.H || ix < 0 || ix >= p.W) continue;
                acc += double(in[((size_t(n) * p.C + c) * p.H + iy) * p.W + ix]) *
                       w[((size_t(k) * p.C + c) * p.R + r) * p.S + s];
              }
          out[((size_t(n) * p.K + k) * p.OH() + y) * p.OW() + x] = float(acc);
        }
  return out;
}

// [N][C][H][W] as [N][C/b][H][W][b], by loops.
std::vector<float> block_nchw(const std::vector<float> &v, int N, int C, int H, int W, int b) {
  std::vector<float> out(v.size());
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int i = 0; i < H * W; ++i)
        out[((size_t(n) * (C / b) + c / b) * H * W + i) * b + c % b] = v[(size_t(n) * C + c) * H * W + i];
  return out;
}

// The graph's ops by name, in order, without inputs and constants.
std::string op_list(const graph::Graph &g) {
  std::string s;
  for (const graph::Node &n : g.nodes())
    if (n.op != "input" && n.op != "constant") s += n.op + ":" + n.name + " ";
  return s;
}

graph::BuildOptions without_pass() {
  graph::BuildOptions o;
  o.alter_layout = false;
  return o;
}

double max_error(const graph::Graph &g, const std::map<std::string, NDArray> &inputs) {
  const std::vector<float> with = graph::build(g, "llvm").run(inputs).to_vector<float>();
  const std::vector<float> without = graph::build(g, "llvm", without_pass()).run(inputs).to_vector<float>();
  return graph_test::max_rel_error(with, without);
}

}  // namespace

TEST_CASE("layout_transform blocks and unblocks tensors as naive loops do", "[graph][layout][ops]") {
  const int N = 2, C = 12, H = 5, W = 3;
  Tensor x = placeholder({N, C, H, W}, Float(32), "x");
  Tensor blocked = ops::layout_transform(x, "NCHW", "NCHW4c", "blocked");
  REQUIRE(blocked.ndim() == 5);
  NDArray in = rnd({N, C, H, W}, 11);
  const NDArray b = run_op(ops::schedule_generic({blocked}), {x}, blocked, {in});
  CHECK(b.shape() == std::vector<int64_t>{N, 3, H, W, 4});
  CHECK(b.to_vector<float>() == block_nchw(in.to_vector<float>(), N, C, H, W, 4));

  // Back from blocks of 4 through blocks of 6 to NCHW: the input again, bit for bit.
  Tensor p = placeholder({N, 3, H, W, 4}, Float(32), "p");
  Tensor back = ops::layout_transform(ops::layout_transform(p, "NCHW4c", "NCHW6c"), "NCHW6c", "NCHW", "back");
  CHECK(run_op(ops::schedule_generic({back}), {p}, back, {b}).to_vector<float>() == in.to_vector<float>());

  // OIHW weights as conv2d_nchwc packs them, [K/co][C/ci][R][S][ci][co].
  const int K = 6, R = 2, S = 3, ci = 4, co = 3;
  Tensor w = placeholder({K, C, R, S}, Float(32), "w");
  Tensor wp = ops::layout_transform(w, "OIHW", "OIHW4i3o");
  NDArray wv = rnd({K, C, R, S}, 12);
  const std::vector<float> got = run_op(ops::schedule_generic({wp}), {w}, wp, {wv}).to_vector<float>();
  const std::vector<float> src = wv.to_vector<float>();
  size_t i = 0;
  for (int ko = 0; ko < K / co; ++ko)
    for (int cb = 0; cb < C / ci; ++cb)
      for (int r = 0; r < R; ++r)
        for (int s = 0; s < S; ++s)
          for (int cc = 0; cc < ci; ++cc)
            for (int kk = 0; kk < co; ++kk, ++i)
              REQUIRE(got[i] == src[((size_t(ko * co + kk) * C + cb * ci + cc) * R + r) * S + s]);

  // A per-channel vector made broadcastable over a blocked tensor.
  Tensor bias = placeholder({C}, Float(32), "bias");
  CHECK(ops::layout_transform(bias, "C", "NCHW4c").ndim() == 5);
  REQUIRE_THROWS_WITH(ops::layout_transform(x, "NCHW", "NCHW5c"), Contains("does not split into blocks of 5"));
  REQUIRE_THROWS_WITH(ops::layout_transform(x, "NCHW", "NC4c"), Contains("no place for it"));
  REQUIRE_THROWS_WITH(ops::layout_transform(x, "NCH", "NCHW"), Contains("has 3"));
  REQUIRE_THROWS_WITH(ops::layout_transform(x, "NCHW", "NCHW4"), Contains("malformed"));
}

TEST_CASE("conv2d_nchwc_packed with the tuned schedule and conv2d_packed_direct match naive loops", "[graph][layout][ops]") {
  // Odd channel counts (blocks of 5, 4, 3, 6, 2), stride 2, padding, and a 1x1.
  const std::vector<Conv> cases = {
      {1, 5, 9, 11, 6, 3, 3, 2, 1},
      {2, 20, 8, 7, 18, 3, 3, 1, 1},
      {1, 12, 7, 7, 40, 1, 1, 1, 0},
      {1, 36, 6, 9, 20, 3, 2, 2, 2},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    const Conv &p = cases[c];
    INFO("case " << c);
    const int ci = ops::conv2d_channel_block(p.C), co = ops::conv2d_channel_block(p.K);
    NDArray in = rnd({p.N, p.C, p.H, p.W}, 20 + c), w = rnd({p.K, p.C, p.R, p.S}, 30 + c);
    const std::vector<float> ref = conv_ref(p, in.to_vector<float>(), w.to_vector<float>());
    // The weights packed by layout_transform, as the graph pass packs them.
    Tensor wt = placeholder({p.K, p.C, p.R, p.S}, Float(32), "w");
    const std::string wl = "OIHW" + std::to_string(ci) + "i" + std::to_string(co) + "o";
    Tensor wpt = ops::layout_transform(wt, "OIHW", wl);
    const NDArray wp = run_op(ops::schedule_generic({wpt}), {wt}, wpt, {w});
    Tensor W = placeholder(std::vector<Expr>(wpt.shape()), Float(32), "wp");

    // NCHW in, NCHW out.
    Tensor X = placeholder({p.N, p.C, p.H, p.W}, Float(32), "x");
    Tensor O = ops::conv2d_nchwc_packed(X, W, p.attrs());
    const NDArray o = run_op(ops::schedule_conv2d_llvm(O), {X, W}, O, {in, wp});
    REQUIRE(o.shape() == std::vector<int64_t>{p.N, p.K, p.OH(), p.OW()});
    CHECK(graph_test::max_rel_error(o.to_vector<float>(), ref) < 1e-5);

    // Blocked in, blocked out, with a fused tail (relu).
    Tensor XB = placeholder({p.N, p.C / ci, p.H, p.W, ci}, Float(32), "xb");
    Tensor OB = ops::conv2d_nchwc_packed(XB, W, p.attrs(), true);
    Tensor T = ops::relu(OB);
    NDArray inb = NDArray::from_vector(block_nchw(in.to_vector<float>(), p.N, p.C, p.H, p.W, ci),
                                       {p.N, p.C / ci, p.H, p.W, ci});
    const NDArray ob = run_op(ops::schedule_conv2d_llvm(OB, T), {XB, W}, T, {inb, wp});
    REQUIRE(ob.shape() == std::vector<int64_t>{p.N, p.K / co, p.OH(), p.OW(), co});
    std::vector<float> ref_relu = ref;
    for (float &v : ref_relu) v = std::max(v, 0.0f);
    CHECK(graph_test::max_rel_error(ob.to_vector<float>(), block_nchw(ref_relu, p.N, p.K, p.OH(), p.OW(), co)) <
          1e-5);

    // The one-stage form under the generic schedule, both ways.
    Tensor D = ops::conv2d_packed_direct(X, W, p.attrs());
    CHECK(graph_test::max_rel_error(run_op(ops::schedule_generic({D}), {X, W}, D, {in, wp}).to_vector<float>(), ref) <
          1e-5);
    Tensor DB = ops::conv2d_packed_direct(XB, W, p.attrs(), true);
    const NDArray db = run_op(ops::schedule_generic({DB}), {XB, W}, DB, {inb, wp});
    REQUIRE(db.shape() == ob.shape());
    CHECK(graph_test::max_rel_error(db.to_vector<float>(), block_nchw(ref, p.N, p.K, p.OH(), p.OW(), co)) < 1e-5);
  }
  Tensor X = placeholder({1, 8, 5, 5}, Float(32), "x");
  Tensor bad = placeholder({2, 1, 3, 3, 4, 4}, Float(32), "wp");
  REQUIRE_THROWS_WITH(ops::conv2d_nchwc_packed(X, bad, {}), Contains("input channels"));
  Tensor xb = placeholder({1, 4, 5, 5, 2}, Float(32), "xb");
  REQUIRE_THROWS_WITH(ops::conv2d_nchwc_packed(xb, placeholder({2, 2, 3, 3, 4, 4}, Float(32), "wp"), {}),
                      Contains("channel blocks of 2"));
}

namespace {

// x -> conv(20 -> 24, stride 2) -> bias -> relu -> conv(24 -> 24) -> bias -> add(residual)
// -> relu -> max_pool -> conv(24 -> 6, 1x1) -> relu -> avg_pool -> global pool -> flatten
// -> dense, plus a depthwise conv that reads the blocked pool output.
graph::Graph small_net(int64_t C, int64_t H, int64_t W) {
  graph::Builder b;
  auto x = b.input("x", {1, C, H, W});
  ops::Conv2dAttrs s2;
  s2.strides = {2, 2};
  s2.padding = {1, 1};
  ops::Conv2dAttrs same;
  same.padding = {1, 1};
  auto c1 = b.conv2d(x, b.constant("c1.w", rnd({24, C, 3, 3}, 1, -0.3, 0.3)), s2, "c1");
  auto r1 = b.relu(b.bias_add(c1, b.constant("c1.b", rnd({24}, 2)), 1, "c1.bias"), "r1");
  auto c2 = b.conv2d(r1, b.constant("c2.w", rnd({24, 24, 3, 3}, 3, -0.2, 0.2)), same, "c2");
  auto a = b.add(b.bias_add(c2, b.constant("c2.b", rnd({24}, 4)), 1, "c2.bias"), r1, "add");
  auto p = b.max_pool2d(b.relu(a, "r2"), {3, 3}, {2, 2}, {1, 1}, "pool");
  auto c3 = b.relu(b.conv2d(p, b.constant("c3.w", rnd({6, 24, 1, 1}, 5, -0.3, 0.3)), {}, "c3"), "r3");
  ops::Conv2dAttrs dw;
  dw.groups = 24;
  dw.padding = {1, 1};
  auto d = b.conv2d(p, b.constant("dw.w", rnd({24, 1, 3, 3}, 6, -0.3, 0.3)), dw, "dw");
  auto a3 = b.make("avg_pool2d", {c3},
                   {{"pool_size", std::vector<int64_t>{2, 2}},
                    {"strides", std::vector<int64_t>{1, 1}},
                    {"padding", std::vector<int64_t>{1, 1}},
                    {"count_include_pad", int64_t(0)}},
                   "avg3");
  auto g1 = b.flatten(b.global_avg_pool2d(a3, "gap3"), "flat3");
  auto g2 = b.flatten(b.global_avg_pool2d(d, "gapd"), "flatd");
  auto fc = b.dense(g1, b.constant("fc.w", rnd({24, 6}, 7, -0.5, 0.5)), "fc");
  return b.finish(b.add(fc, g2, "out"));
}

}  // namespace

TEST_CASE("alter_conv_layout blocks convolutions and converts only at the edges", "[graph][layout][passes]") {
  const graph::Graph g = small_net(20, 11, 13);
  const graph::Graph a = graph::alter_conv_layout(g);
  // Weights packed through layout_transform (blocks of 4 input and 8 output channels for
  // c1: 20 and 24 channels), biases as broadcast adds, the depthwise conv in the pool's
  // blocks of 8 (its weight as [3][1][3][3][1][8]), flatten reading NCHW, c3 (6
  // channels, one block of 6) after the blocked pool.
  CHECK(op_list(a) ==
        "layout_transform:c1.w.OIHW4i8o conv2d:c1 add:c1.bias relu:r1 "
        "layout_transform:c2.w.OIHW8i8o conv2d:c2 add:c2.bias add:add relu:r2 "
        "max_pool2d:pool layout_transform:c3.w.OIHW8i6o conv2d:c3 relu:r3 layout_transform:dw.w.OIHW1i8o conv2d:dw "
        "avg_pool2d:avg3 global_avg_pool2d:gap3 layout_transform:gap3.to_NCHW flatten:flat3 global_avg_pool2d:gapd "
        "layout_transform:gapd.to_NCHW flatten:flatd dense:fc add:out ");
  CHECK(a.node("c1").shape == std::vector<int64_t>{1, 3, 6, 7, 8});
  CHECK(a.node("c1.b.NCHW8c").op == "constant");  // the bias, viewed in blocks
  CHECK(a.node("c1.b.NCHW8c").shape == std::vector<int64_t>{1, 3, 1, 1, 8});
  CHECK(a.node("pool").shape == std::vector<int64_t>{1, 3, 3, 4, 8});
  CHECK(a.node("c3").shape == std::vector<int64_t>{1, 1, 3, 4, 6});
  const auto str = [](const std::string &v) { return graph::AttrValue(v); };
  CHECK(a.node("c1").attrs.at("data_layout") == str("NCHW"));
  CHECK(a.node("c1").attrs.at("kernel_layout") == str("OIHW4i8o"));
  CHECK(a.node("c1").attrs.at("out_layout") == str("NCHW8c"));
  CHECK(a.node("c2").attrs.at("data_layout") == str("NCHW8c"));
  CHECK(a.node("dw").attrs.at("kernel_layout") == str("OIHW1i8o"));
  CHECK(a.node("dw").attrs.at("data_layout") == str("NCHW8c"));
  CHECK(a.node("dw").shape == std::vector<int64_t>{1, 3, 3, 4, 8});
  // Altered once is enough: the pass leaves its own result alone.
  CHECK(graph::alter_conv_layout(a).str() == a.str());
  CHECK(a.node("out").shape == g.node("out").shape);

  // A residual add of the graph's input: the convolution writes NCHW rather than have
  // the input transformed into blocks by a kernel of its own.
  graph::Builder rb;
  auto rx = rb.input("x", {1, 8, 6, 6});
  ops::Conv2dAttrs same;
  same.padding = {1, 1};
  auto rc = rb.relu(rb.conv2d(rx, rb.constant("w", rnd({8, 8, 3, 3}, 8)), same, "conv"), "r");
  const graph::Graph ra = graph::alter_conv_layout(rb.finish(rb.add(rc, rx, "res")));
  CHECK(op_list(ra) == "layout_transform:w.OIHW8i8o conv2d:conv relu:r add:res ");
  CHECK(ra.node("conv").attrs.at("out_layout") == str("NCHW"));

  // A blocked output that no convolution writes (a pool's) is transformed back to NCHW
  // under the output's name.
  graph::Builder pb;
  auto px = pb.input("x", {1, 8, 6, 6});
  auto pc = pb.relu(pb.conv2d(px, pb.constant("w", rnd({16, 8, 3, 3}, 8)), same, "conv"), "r");
  const graph::Graph pg = pb.finish(pb.max_pool2d(pc, {2, 2}, {2, 2}, {0, 0}, "pool"));
  const graph::Graph pa = graph::alter_conv_layout(pg);
  CHECK(op_list(pa) ==
        "layout_transform:w.OIHW8i16o conv2d:conv relu:r max_pool2d:pool.blocked layout_transform:pool ");
  CHECK(pa.node(pa.output()).name == "pool");
  CHECK(pa.node(pa.output()).shape == std::vector<int64_t>{1, 16, 3, 3});
  const NDArray pin = rnd({1, 8, 6, 6}, 15);
  CHECK(graph_test::max_rel_error(graph::build(pg, "llvm").run({{"x", pin}}).to_vector<float>(),
                                  graph::build(pg, "llvm", without_pass()).run({{"x", pin}}).to_vector<float>()) <
        1e-5);

  // Layout attributes that do not describe the tensors are errors naming the node.
  graph::Builder eb;
  auto ex = eb.input("x", {1, 8, 5, 5});
  auto ew = eb.constant("w", rnd({2, 2, 3, 3, 4, 4}, 9));
  std::map<std::string, graph::AttrValue> attrs = {{"strides", std::vector<int64_t>{1, 1}},
                                                   {"padding", std::vector<int64_t>{1, 1}},
                                                   {"dilation", std::vector<int64_t>{1, 1}},
                                                   {"groups", int64_t(1)},
                                                   {"data_layout", std::string("NCHW")},
                                                   {"kernel_layout", std::string("OIHW4i4o")},
                                                   {"out_layout", std::string("NCHW4c")}};
  CHECK(eb.node(eb.make("conv2d", {ex, ew}, attrs, "ok")).shape == std::vector<int64_t>{1, 2, 5, 5, 4});
  attrs["kernel_layout"] = std::string("OIHW2i8o");
  REQUIRE_THROWS_WITH(eb.make("conv2d", {ex, ew}, attrs, "bad"),
                      Contains("node 'bad' (conv2d): kernel_layout 'OIHW2i8o' does not describe the weight"));
  attrs["kernel_layout"] = std::string("OIHW4i4o");
  attrs["out_layout"] = std::string("NCHW8c");
  REQUIRE_THROWS_WITH(eb.make("conv2d", {ex, ew}, attrs, "bad"), Contains("out_layout 'NCHW8c' must be NCHW or NCHW4c"));

  // Weights only: every convolution reads and writes NCHW.
  const graph::Graph w = graph::alter_conv_layout(g, false);
  for (const graph::Node &n : w.nodes())
    if (n.op == "layout_transform") CHECK(n.attrs.at("src_layout") == str("OIHW"));
  CHECK(w.node("c1").shape == g.node("c1").shape);

  // graph::build folds the packing into constants of the blocked shapes.
  const graph::CompiledModel m = graph::build(g, "llvm");
  const graph::Graph &built = m.graph();
  // With 16-lane vectors c1's 24 output channels compute on two whole vectors
  // (ops::conv2d_compute_block), its weight padded to 32 channels.
  const bool wide = Target("llvm").caps().cpu_vector_lanes == 16;
  const std::string c1w = wide ? "c1.w.OIHW4i16o" : "c1.w.OIHW4i8o";
  CHECK(built.node(c1w).op == "constant");
  CHECK(built.node(c1w).shape == (wide ? std::vector<int64_t>{2, 5, 3, 3, 4, 16} : std::vector<int64_t>{3, 5, 3, 3, 4, 8}));
  CHECK(built.node("c1.b.NCHW8c").shape == std::vector<int64_t>{1, 3, 1, 1, 8});
  size_t transforms = 0;
  for (const graph::Node &n : built.nodes()) {
    CHECK((n.op != "conv2d" || built.node(n.inputs[1]).op == "constant"));
    transforms += n.op == "layout_transform";
  }
  CHECK(transforms == 2);  // gap3 and pool back to NCHW
  // The unpacked weights are gone.
  for (const graph::Node &n : built.nodes()) CHECK(n.name != "c1.w");
  // Convolutions keep their element-wise tails in one kernel.
  const std::string groups = graph::groups_str(built, graph::fuse_operators(built));
  CHECK_THAT(groups, Contains("c1+c1.bias+r1\n"));
  CHECK_THAT(groups, Contains("c2+c2.bias+add+r2\n"));
  CHECK_THAT(groups, Contains("c3+r3\n"));
}

TEST_CASE("models built with blocked layouts compute what they compute without", "[graph][layout]") {
  // Odd shapes: channels that are not multiples of 16, odd sizes, stride 2, padding.
  for (auto [C, H, W] : std::vector<std::array<int64_t, 3>>{{20, 11, 13}, {3, 9, 8}, {32, 10, 10}}) {
    INFO("input " << C << "x" << H << "x" << W);
    const graph::Graph g = small_net(C, H, W);
    const double err = max_error(g, {{"x", rnd({1, C, H, W}, 100 + uint64_t(C))}});
    INFO("max |a - b| / max |b| = " << err);
    CHECK(err < 1e-5);
  }
  // The block_net of test_passes (batch norm, residual add of the input, pool, dense,
  // softmax), and one where the graph's output is a blocked convolution's result.
  graph::Builder b;
  auto x = b.input("x", {2, 6, 7, 7});
  ops::Conv2dAttrs a;
  a.padding = {2, 1};
  a.strides = {2, 1};
  auto c = b.conv2d(x, b.constant("w", rnd({34, 6, 3, 2}, 9)), a, "conv");
  auto n = b.batch_norm(c, b.constant("g", rnd({34}, 10, 0.5, 1.5)), b.constant("be", rnd({34}, 11)),
                        b.constant("m", rnd({34}, 12, -0.2, 0.2)), b.constant("v", rnd({34}, 13, 0.5, 1.5)), 1e-5,
                        "bn");
  const graph::Graph g = b.finish(b.relu(n, "relu"));
  const double err = max_error(g, {{"x", rnd({2, 6, 7, 7}, 14)}});
  CHECK(err < 1e-5);
  // The convolution writes NCHW in its fused kernel rather than blocks that a kernel of
  // their own would transform for the output.
  const graph::CompiledModel m = graph::build(g, "llvm");
  CHECK(m.num_kernels() == 1);
  CHECK(m.graph().node("conv").attrs.at("out_layout") == graph::AttrValue(std::string("NCHW")));
  CHECK(m.graph().node("relu").shape == std::vector<int64_t>{2, 34, 5, 8});
}

TEST_CASE("resnet18 with blocked layouts matches the reference model", "[graph][layout][resnet18]") {
  const uint64_t seed = 2024;
  const graph::Graph g = graph::resnet18(seed);
  graph::CompiledModel m = graph::build(g, "llvm");
  size_t transforms = 0, convs = 0;
  for (const graph::Node &n : m.graph().nodes()) {
    transforms += n.op == "layout_transform";
    // The 3x3 stride-1 convolutions the default makes Winograd ones keep the blocks too.
    if (n.op != "conv2d" && n.op != "conv2d_winograd") continue;
    ++convs;
    CHECK(n.attrs.at("out_layout") == graph::AttrValue(std::string("NCHW16c")));
    CHECK(m.graph().node(n.inputs[1]).shape.size() == (n.op == "conv2d" ? 6u : 5u));
  }
  CHECK(convs == 20);
  CHECK(transforms == 1);  // after the global pool, before flatten
  NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const std::vector<float> out = m.run({{"data", input}}).to_vector<float>();
  const std::vector<float> ref =
      reference::resnet18_forward(reference::resnet18_weights(seed), input.to_vector<float>());
  const double err = graph_test::max_rel_error(out, ref);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err < 1e-4);
}

TEST_CASE("layout_transform_pad pads channels to whole blocks with zeros", "[graph][layout][ops]") {
  for (int C : {3, 6, 8}) {
    INFO(C << " channels");
    const int N = 2, H = 3, W = 5, CB = (C + 3) / 4;
    Tensor x = placeholder({N, C, H, W}, Float(32), "x");
    Tensor p = ops::layout_transform_pad(x, "NCHW", "NCHW4c", "p");
    NDArray in = rnd({N, C, H, W}, 30 + uint64_t(C));
    const NDArray got = run_op(ops::schedule_generic({p}), {x}, p, {in});
    REQUIRE(got.shape() == std::vector<int64_t>{N, CB, H, W, 4});
    const std::vector<float> g = got.to_vector<float>(), src = in.to_vector<float>();
    size_t i = 0;
    for (int n = 0; n < N; ++n)
      for (int cb = 0; cb < CB; ++cb)
        for (int h = 0; h < H; ++h)
          for (int w = 0; w < W; ++w)
            for (int cc = 0; cc < 4; ++cc, ++i) {
              const int c = cb * 4 + cc;
              REQUIRE(g[i] == (c < C ? src[((size_t(n) * C + c) * H + h) * W + w] : 0.0f));
            }
  }
  // OIHW weights with 3 input channels, as OIHW4i4o with a zero 4th.
  const int K = 8, C = 3, R = 2, S = 3;
  Tensor w = placeholder({K, C, R, S}, Float(32), "w");
  Tensor wp = ops::layout_transform_pad(w, "OIHW", "OIHW4i4o");
  NDArray wv = rnd({K, C, R, S}, 40);
  const NDArray got = run_op(ops::schedule_generic({wp}), {w}, wp, {wv});
  REQUIRE(got.shape() == std::vector<int64_t>{K / 4, 1, R, S, 4, 4});
  const std::vector<float> g = got.to_vector<float>(), src = wv.to_vector<float>();
  size_t i = 0;
  for (int ko = 0; ko < K / 4; ++ko)
    for (int r = 0; r < R; ++r)
      for (int s = 0; s < S; ++s)
        for (int cc = 0; cc < 4; ++cc)
          for (int kk = 0; kk < 4; ++kk, ++i)
            REQUIRE(g[i] == (cc < C ? src[((size_t(ko * 4 + kk) * C + cc) * R + r) * S + s] : 0.0f));
}

TEST_CASE("stems of 3 and 6 channels padded to blocks of 4 for the fragment targets", "[graph][layout][webgl]") {
  const auto str = [](const std::string &v) { return graph::AttrValue(v); };
  for (int64_t C : {3, 6}) {
    INFO(C << " input channels");
    const int64_t CB = (C + 3) / 4;
    graph::Builder b;
    auto x = b.input("x", {1, C, 17, 14});
    ops::Conv2dAttrs stem;
    stem.strides = {2, 2};
    stem.padding = {3, 3};
    auto c1 = b.conv2d(x, b.constant("stem.w", rnd({16, C, 7, 7}, 50 + uint64_t(C), -0.2, 0.2)), stem, "stem");
    auto r1 = b.relu(b.bias_add(c1, b.constant("stem.b", rnd({16}, 51)), 1, "stem.bias"), "r1");
    ops::Conv2dAttrs same;
    same.padding = {1, 1};
    auto c2 = b.conv2d(r1, b.constant("c2.w", rnd({8, 16, 3, 3}, 52, -0.2, 0.2)), same, "c2");
    const graph::Graph g = b.finish(b.relu(c2, "out"));

    const graph::Graph a = graph::alter_conv_layout(g, true, 4);
    CHECK(op_list(a) ==
          "layout_transform:stem.w.OIHW4i4o layout_transform:x.to_NCHW4c conv2d:stem add:stem.bias relu:r1 "
          "layout_transform:c2.w.OIHW4i4o conv2d:c2 relu:out ");
    CHECK(a.node("x.to_NCHW4c").shape == std::vector<int64_t>{1, CB, 17, 14, 4});
    CHECK(a.node("x.to_NCHW4c").attrs.at("pad") == graph::AttrValue(int64_t{1}));
    CHECK(a.node("stem.w.OIHW4i4o").shape == std::vector<int64_t>{4, CB, 7, 7, 4, 4});
    CHECK(a.node("stem").attrs.at("data_layout") == str("NCHW4c"));
    CHECK(a.node("stem").attrs.at("kernel_layout") == str("OIHW4i4o"));
    CHECK(a.node("stem").shape == std::vector<int64_t>{1, 4, 9, 7, 4});
    // The CPU blocks are untouched: no padding there.
    const graph::Graph cpu_graph = graph::alter_conv_layout(g);  // named: a range over a temporary's nodes would dangle
    for (const graph::Node &n : cpu_graph.nodes()) CHECK((n.attrs.count("pad") == 0 || n.attr_int("pad") == 0));

#if TENSORIR_WITH_OPENGL
    const std::map<std::string, NDArray> in = {{"x", rnd({1, C, 17, 14}, 60 + uint64_t(C))}};
    graph::BuildOptions plain;
    plain.alter_layout = false;
    const graph::CompiledModel m = graph::build(g, "webgl");
    CHECK(m.graph().node("stem").attrs.at("data_layout") == str("NCHW4c"));
    CHECK(m.graph().node("stem.w.OIHW4i4o").op == "constant");  // packed at build time
    const std::vector<float> with = m.run(in).to_vector<float>();
    const std::vector<float> without = graph::build(g, "webgl", plain).run(in).to_vector<float>();
    const std::vector<float> cpu = graph::build(g, "llvm").run(in).to_vector<float>();
    CHECK(graph_test::max_rel_error(with, without) < 1e-5);
    CHECK(graph_test::max_rel_error(with, cpu) < 1e-5);
#endif
  }
}

TEST_CASE("alter_conv_layout in blocks of 4 channels for the fragment targets", "[graph][layout][webgl]") {
  const auto str = [](const std::string &v) { return graph::AttrValue(v); };
  const graph::Graph g = small_net(20, 11, 13);
  const graph::Graph a = graph::alter_conv_layout(g, true, 4);
  // Every block 4 channels wide; c3's 6 output channels do not split into blocks of 4,
  // so c3 stays an NCHW convolution reading the pool in NCHW, like the depthwise one.
  CHECK(op_list(a) ==
        "layout_transform:c1.w.OIHW4i4o conv2d:c1 add:c1.bias relu:r1 "
        "layout_transform:c2.w.OIHW4i4o conv2d:c2 add:c2.bias add:add relu:r2 "
        "max_pool2d:pool layout_transform:pool.to_NCHW conv2d:c3 relu:r3 conv2d:dw "
        "avg_pool2d:avg3 global_avg_pool2d:gap3 flatten:flat3 global_avg_pool2d:gapd "
        "flatten:flatd dense:fc add:out ");
  CHECK(a.node("c1").shape == std::vector<int64_t>{1, 6, 6, 7, 4});
  CHECK(a.node("c1.w.OIHW4i4o").shape == std::vector<int64_t>{6, 5, 3, 3, 4, 4});
  CHECK(a.node("c1.b.NCHW4c").shape == std::vector<int64_t>{1, 6, 1, 1, 4});
  CHECK(a.node("c2").attrs.at("data_layout") == str("NCHW4c"));
  CHECK(a.node("c2").attrs.at("out_layout") == str("NCHW4c"));
  CHECK(a.node("c3").attrs.at("kernel_layout") == str("OIHW"));

  // Input channels that do not split into blocks of 4 (an image's 3): data and weights
  // padded with zero channels to one block of 4.
  const graph::Graph s = graph::alter_conv_layout(small_net(3, 9, 8), true, 4);
  CHECK(s.node("c1").attrs.at("data_layout") == str("NCHW4c"));
  CHECK(s.node("c1").attrs.at("kernel_layout") == str("OIHW4i4o"));
  CHECK(s.node("c1").attrs.at("out_layout") == str("NCHW4c"));
  CHECK(s.node("c1.w.OIHW4i4o").shape == std::vector<int64_t>{6, 1, 3, 3, 4, 4});
  CHECK(s.node("x.to_NCHW4c").shape == std::vector<int64_t>{1, 1, 9, 8, 4});
  CHECK(s.node("c1").shape == std::vector<int64_t>{1, 6, 5, 4, 4});
  REQUIRE_THROWS_WITH(graph::alter_conv_layout(g, true, -4), Contains("channel_block"));

#if TENSORIR_WITH_OPENGL
  // Built for "webgl", the graph is blocked and computes what it computes without the
  // pass, and what the CPU computes. "opengl -mode=fragment" keeps NCHW by default (it
  // packs only some textures) but runs a graph blocked beforehand alike.
  graph::BuildOptions plain;
  plain.alter_layout = false;
  for (auto [C, H, W] : std::vector<std::array<int64_t, 3>>{{20, 11, 13}, {3, 9, 8}, {32, 10, 10}}) {
    INFO("input " << C << "x" << H << "x" << W);
    const graph::Graph net = small_net(C, H, W);
    const std::map<std::string, NDArray> in = {{"x", rnd({1, C, H, W}, 200 + uint64_t(C))}};
    const graph::CompiledModel m = graph::build(net, "webgl");
    CHECK(m.graph().node("c2").attrs.at("kernel_layout") == str("OIHW4i4o"));
    CHECK(m.graph().node("c2.w.OIHW4i4o").op == "constant");  // packed at build time
    const std::vector<float> with = m.run(in).to_vector<float>();
    const std::vector<float> without = graph::build(net, "webgl", plain).run(in).to_vector<float>();
    const std::vector<float> cpu = graph::build(net, "llvm").run(in).to_vector<float>();
    CHECK(graph_test::max_rel_error(with, without) < 1e-5);
    CHECK(graph_test::max_rel_error(with, cpu) < 1e-5);
    const graph::CompiledModel f = graph::build(graph::alter_conv_layout(net, true, 4), "opengl -mode=fragment");
    CHECK(f.graph().node("c2").attrs.at("out_layout") == str("NCHW4c"));
    CHECK(graph_test::max_rel_error(f.run(in).to_vector<float>(), cpu) < 1e-5);
  }
  // The graph's output a blocked convolution's: back to NCHW under its name.
  graph::Builder b;
  auto x = b.input("x", {1, 8, 7, 5});
  ops::Conv2dAttrs s2;
  s2.strides = {2, 2};
  s2.padding = {1, 0};
  const graph::Graph cg = b.finish(b.relu(b.conv2d(x, b.constant("w", rnd({12, 8, 3, 2}, 21)), s2, "conv"), "relu"));
  const NDArray xv = rnd({1, 8, 7, 5}, 22);
  const graph::CompiledModel cm = graph::build(cg, "webgl");
  CHECK(cm.graph().node(cm.graph().output()).name == "relu");
  CHECK(cm.graph().node("relu").shape == std::vector<int64_t>{1, 12, 4, 2});
  CHECK(graph_test::max_rel_error(cm.run({{"x", xv}}).to_vector<float>(),
                                  graph::build(cg, "llvm").run({{"x", xv}}).to_vector<float>()) < 1e-5);
#endif
}
