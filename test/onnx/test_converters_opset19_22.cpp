// Converters at opsets 19 to 22, on models built here, against plain loops: AveragePool's
// dilations, Pad's wrap mode, Resize's half_pixel_symmetric, GridSample's renamed modes,
// DFT's axis input, bool ReduceMax/ReduceMin, QuantizeLinear's output_dtype, and the
// operators new there or missing before (Gelu, Mish, GroupNormalization, LpNormalization);
// what the converters cannot do is refused with the reason.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <cmath>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
using onnx_test::attr;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::run;
namespace tonnx = tensorir::onnx;

namespace {

// A one-node model of `op` over float input x of `shape` at `opset`, output y.
ModelBuilder unary_model(int opset, const std::string &op, const std::vector<int64_t> &shape) {
  ModelBuilder mb(opset);
  mb.input("x", dims(shape));
  mb.node(op, {"x"}, {"y"}, "n");
  mb.output("y");
  return mb;
}

::onnx::NodeProto &last_node(ModelBuilder &mb) { return *mb.graph().mutable_node(mb.graph().node_size() - 1); }

}  // namespace

TEST_CASE("converters: AveragePool 19 with dilations", "[onnx][converters][opset19]") {
  // [1, 1, 6, 7], a 2x3 window dilated by (2, 2), stride 1, pads 1 on every side.
  const int64_t H = 6, W = 7, kh = 2, kw = 3, d = 2, pad = 1;
  const NDArray x = NDArray::random({1, 1, H, W}, Float(32), 81);
  const std::vector<float> xv = x.to_vector<float>();
  for (int64_t include_pad : {0, 1}) {
    CAPTURE(include_pad);
    ModelBuilder mb(19);
    mb.input("x", dims({1, 1, H, W}));
    auto &n = mb.node("AveragePool", {"x"}, {"y"}, "pool");
    attr(n, "kernel_shape", std::vector<int64_t>{kh, kw});
    attr(n, "dilations", std::vector<int64_t>{d, d});
    attr(n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
    attr(n, "count_include_pad", include_pad);
    mb.output("y");
    const int64_t oh = H + 2 * pad - (kh - 1) * d, ow = W + 2 * pad - (kw - 1) * d;
    std::vector<double> want;
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double sum = 0;
        int count = 0;
        for (int64_t a = 0; a < kh; ++a)
          for (int64_t b = 0; b < kw; ++b) {
            const int64_t r = i - pad + a * d, s = j - pad + b * d;
            const bool inside = r >= 0 && r < H && s >= 0 && s < W;
            if (inside) sum += xv[size_t(r * W + s)];
            if (inside || include_pad) ++count;
          }
        want.push_back(sum / count);
      }
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{1, 1, oh, ow});
    check_close(y, want);
  }
  SECTION("before opset 19 dilations are refused") {
    ModelBuilder mb(18);
    mb.input("x", dims({1, 1, H, W}));
    auto &n = mb.node("AveragePool", {"x"}, {"y"}, "pool");
    attr(n, "kernel_shape", std::vector<int64_t>{kh, kw});
    attr(n, "dilations", std::vector<int64_t>{d, d});
    mb.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("node 'pool' (AveragePool): dilations"));
  }
}

TEST_CASE("converters: Pad 19 in wrap mode", "[onnx][converters][opset19]") {
  const int64_t R = 3, C = 4;
  const NDArray x = NDArray::random({R, C}, Float(32), 82);
  const std::vector<float> xv = x.to_vector<float>();
  // Rows 1 before and 2 after; columns 6 before (more than once round) and 3 after.
  const std::vector<int64_t> pads = {1, 6, 2, 3};
  ModelBuilder mb(19);
  mb.input("x", dims({R, C}));
  mb.initializer("pads", NDArray::from_vector<int64_t>(pads, {4}));
  attr(mb.node("Pad", {"x", "pads"}, {"y"}, "wrap"), "mode", std::string("wrap"));
  mb.output("y");
  const int64_t orows = R + pads[0] + pads[2], ocols = C + pads[1] + pads[3];
  std::vector<double> want;
  auto wrap = [](int64_t i, int64_t n) { return ((i % n) + n) % n; };
  for (int64_t i = 0; i < orows; ++i)
    for (int64_t j = 0; j < ocols; ++j)
      want.push_back(xv[size_t(wrap(i - pads[0], R) * C + wrap(j - pads[1], C))]);
  const NDArray y = run(mb, {{"x", x}}).at(0);
  CHECK(y.shape() == std::vector<int64_t>{orows, ocols});
  check_close(y, want, 0, 0);

  SECTION("with a negative pad it is refused") {
    ModelBuilder neg(19);
    neg.input("x", dims({R, C}));
    neg.initializer("pads", NDArray::from_vector<int64_t>({0, 2, 0, -1}, {4}));
    attr(neg.node("Pad", {"x", "pads"}, {"y"}, "wrap"), "mode", std::string("wrap"));
    neg.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(neg.bytes()), Contains("mode wrap with negative pads"));
  }
  SECTION("at opset 18 wrap is not a mode") {
    ModelBuilder old(18);
    old.input("x", dims({R, C}));
    old.initializer("pads", NDArray::from_vector<int64_t>(pads, {4}));
    attr(old.node("Pad", {"x", "pads"}, {"y"}, "wrap"), "mode", std::string("wrap"));
    old.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(old.bytes()), Contains("mode 'wrap' is not supported"));
  }
}

TEST_CASE("converters: Resize 19 with half_pixel_symmetric", "[onnx][converters][opset19]") {
  const int64_t H = 4, W = 5;
  const NDArray x = NDArray::random({1, 1, H, W}, Float(32), 83);
  const std::vector<float> xv = x.to_vector<float>();
  const double sh = 1.7, sw = 0.7;  // 4 -> 6 (6.8 rounded down), 5 -> 3 (3.5 rounded down)
  const int64_t oh = int64_t(std::floor(H * sh)), ow = int64_t(std::floor(W * sw));
  // ONNX: offset = in / 2 * (1 - out / (in * scale)), then the half-pixel map.
  auto source = [](int64_t o, int64_t in, int64_t out, double scale) {
    const double offset = double(in) / 2 * (1 - double(out) / (double(in) * double(float(scale))));
    return offset + (double(o) + 0.5) / double(float(scale)) - 0.5;
  };
  auto at = [&](int64_t r, int64_t c) {
    r = std::clamp<int64_t>(r, 0, H - 1);
    c = std::clamp<int64_t>(c, 0, W - 1);
    return double(xv[size_t(r * W + c)]);
  };
  for (const std::string mode : {"linear", "nearest"}) {
    CAPTURE(mode);
    ModelBuilder mb(19);
    mb.input("x", dims({1, 1, H, W}));
    mb.initializer("scales", NDArray::from_vector<float>({1, 1, float(sh), float(sw)}, {4}));
    auto &n = mb.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    attr(n, "mode", mode);
    attr(n, "coordinate_transformation_mode", std::string("half_pixel_symmetric"));
    mb.output("y");
    std::vector<double> want;
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const double r = source(i, H, oh, sh), c = source(j, W, ow, sw);
        if (mode == "nearest") {  // round_prefer_floor
          want.push_back(at(int64_t(std::ceil(r - 0.5)), int64_t(std::ceil(c - 0.5))));
          continue;
        }
        const double r0 = std::floor(r), c0 = std::floor(c), fr = r - r0, fc = c - c0;
        const int64_t i0 = int64_t(r0), j0 = int64_t(c0);
        want.push_back((1 - fr) * ((1 - fc) * at(i0, j0) + fc * at(i0, j0 + 1)) +
                       fr * ((1 - fc) * at(i0 + 1, j0) + fc * at(i0 + 1, j0 + 1)));
      }
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{1, 1, oh, ow});
    check_close(y, want);
  }
  SECTION("before opset 19 it is refused") {
    ModelBuilder old(18);
    old.input("x", dims({1, 1, H, W}));
    old.initializer("scales", NDArray::from_vector<float>({1, 1, 2, 2}, {4}));
    attr(old.node("Resize", {"x", "", "scales"}, {"y"}, "resize"), "coordinate_transformation_mode",
         std::string("half_pixel_symmetric"));
    old.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(old.bytes()), Contains("half_pixel_symmetric needs opset 19"));
  }
}

TEST_CASE("converters: GridSample 20 names its modes linear and cubic", "[onnx][converters][opset20]") {
  const NDArray x = NDArray::random({1, 2, 4, 5}, Float(32), 84);
  const NDArray grid = NDArray::random({1, 3, 3, 2}, Float(32), 85, -1.1, 1.1);
  auto model = [&](int opset, const std::string &mode) {
    ModelBuilder mb(opset);
    mb.input("x", dims({1, 2, 4, 5}));
    mb.input("grid", dims({1, 3, 3, 2}));
    attr(mb.node("GridSample", {"x", "grid"}, {"y"}, "gs"), "mode", mode);
    mb.output("y");
    return mb;
  };
  // Each opset-20 mode gives what its opset-16 name gives (both checked against loops in
  // the GridSample tests).
  for (const auto &[now, before] : std::vector<std::pair<std::string, std::string>>{
           {"linear", "bilinear"}, {"cubic", "bicubic"}, {"nearest", "nearest"}}) {
    CAPTURE(now);
    const std::vector<float> want = run(model(16, before), {{"x", x}, {"grid", grid}}).at(0).to_vector<float>();
    check_close(run(model(20, now), {{"x", x}, {"grid", grid}}).at(0), want, 0, 0);
  }
  REQUIRE_THROWS_WITH(tonnx::import_bytes(model(20, "bilinear").bytes()),
                      Contains("mode 'bilinear' is not supported (nearest, linear and cubic from this opset)"));
  REQUIRE_THROWS_WITH(tonnx::import_bytes(model(16, "linear").bytes()), Contains("mode 'linear' is not supported"));
}

TEST_CASE("converters: DFT 20 takes its axis as an input", "[onnx][converters][opset20]") {
  const int64_t A = 3, B = 4;  // real signal [A, B, 1]
  const NDArray x = NDArray::random({A, B, 1}, Float(32), 86);
  const std::vector<float> xv = x.to_vector<float>();
  for (int64_t axis : {0, -2}) {
    CAPTURE(axis);
    ModelBuilder mb(20);
    mb.input("x", dims({A, B, 1}));
    std::vector<std::string> ins = {"x"};
    if (axis == 0) {
      mb.initializer("axis", NDArray::from_vector<int64_t>({0}, {}));
      ins = {"x", "", "axis"};
    }
    mb.node("DFT", ins, {"y"}, "dft");
    mb.output("y");
    const bool first = axis == 0;
    const int64_t n = first ? A : B;
    std::vector<double> want;
    for (int64_t i = 0; i < A; ++i)
      for (int64_t j = 0; j < B; ++j) {
        const int64_t k = first ? i : j;
        double re = 0, im = 0;
        for (int64_t t = 0; t < n; ++t) {
          const double v = xv[size_t(first ? t * B + j : i * B + t)];
          const double phase = -2 * M_PI * double(k * t) / double(n);
          re += v * std::cos(phase);
          im += v * std::sin(phase);
        }
        want.push_back(re);
        want.push_back(im);
      }
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{A, B, 2});
    check_close(y, want, 1e-4, 1e-5);
  }
  SECTION("DFT 17 takes axis 0 as an attribute; DFT 20 refuses one") {
    for (int opset : {17, 20}) {
      ModelBuilder mb(opset);
      mb.input("x", dims({A, B, 1}));
      attr(mb.node("DFT", {"x"}, {"y"}, "dft"), "axis", int64_t{0});
      mb.output("y");
      if (opset == 20) {
        REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("from opset 20 it is input 2"));
        continue;
      }
      const std::vector<float> got = run(mb, {{"x", x}}).at(0).to_vector<float>();
      for (int64_t j = 0; j < B; ++j) {  // bin 0 along axis 0: the column's sum
        double sum = 0;
        for (int64_t t = 0; t < A; ++t) sum += xv[size_t(t * B + j)];
        CHECK(got[size_t(j * 2)] == Approx(sum).epsilon(1e-5).margin(1e-5));
      }
    }
  }
  SECTION("the complex axis is refused") {
    ModelBuilder mb(20);
    mb.input("x", dims({A, B, 1}));
    mb.initializer("axis", NDArray::from_vector<int64_t>({-1}, {}));
    mb.node("DFT", {"x", "", "axis"}, {"y"}, "dft");
    mb.output("y");
    REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("axis -1 is out of range for rank 3"));
  }
}

TEST_CASE("converters: ReduceMax and ReduceMin 20 of bool", "[onnx][converters][opset20]") {
  const std::vector<bool> v = {false, true, false, false, false, false, true, true, true};
  const NDArray x = NDArray::from_vector<bool>(v, {3, 3});
  for (const std::string op : {"ReduceMax", "ReduceMin"}) {
    CAPTURE(op);
    ModelBuilder mb(20);
    mb.input("x", dims({3, 3}), ::onnx::TensorProto::BOOL);
    mb.initializer("axes", NDArray::from_vector<int64_t>({1}, {1}));
    attr(mb.node(op, {"x", "axes"}, {"y"}, "r"), "keepdims", int64_t{0});
    mb.output("y", {}, ::onnx::TensorProto::BOOL);
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.dtype() == Bool());
    std::vector<bool> want;
    for (size_t r = 0; r < 3; ++r) {
      const bool any = v[r * 3] || v[r * 3 + 1] || v[r * 3 + 2], all = v[r * 3] && v[r * 3 + 1] && v[r * 3 + 2];
      want.push_back(op == "ReduceMax" ? any : all);
    }
    CHECK(y.to_vector<bool>() == want);
  }
  SECTION("before opset 20 bool is refused") {
    ModelBuilder mb(18);
    mb.input("x", dims({3, 3}), ::onnx::TensorProto::BOOL);
    mb.node("ReduceMax", {"x"}, {"y"}, "r");
    mb.output("y", {}, ::onnx::TensorProto::BOOL);
    REQUIRE_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("bool input 'x'"));
  }
}

TEST_CASE("converters: QuantizeLinear 21's output_dtype, and blocked quantization refused",
          "[onnx][converters][opset21]") {
  const NDArray x = NDArray::random({2, 6}, Float(32), 87, -40, 40);
  const std::vector<float> xv = x.to_vector<float>();
  ModelBuilder mb(21);
  mb.input("x", dims({2, 6}));
  mb.initializer("scale", NDArray::from_vector<float>({0.25f}, {}));
  attr(mb.node("QuantizeLinear", {"x", "scale"}, {"y"}, "q"), "output_dtype", int64_t{::onnx::TensorProto::INT8});
  mb.output("y", {}, ::onnx::TensorProto::INT8);
  const NDArray y = run(mb, {{"x", x}}).at(0);
  REQUIRE(y.dtype() == Int(8));
  std::vector<int8_t> want;
  for (float v : xv) want.push_back(int8_t(std::clamp(std::nearbyint(double(v) / 0.25), -128.0, 127.0)));
  CHECK(y.to_vector<int8_t>() == want);

  ModelBuilder mismatch(21);
  mismatch.input("x", dims({2, 6}));
  mismatch.initializer("scale", NDArray::from_vector<float>({0.25f}, {}));
  mismatch.initializer("zero", NDArray::from_vector<uint8_t>({3}, {}));
  attr(mismatch.node("QuantizeLinear", {"x", "scale", "zero"}, {"y"}, "q"), "output_dtype",
       int64_t{::onnx::TensorProto::INT8});
  mismatch.output("y", {}, ::onnx::TensorProto::INT8);
  REQUIRE_THROWS_WITH(tonnx::import_bytes(mismatch.bytes()),
                      Contains("output_dtype is int8 but zero point 'zero' is uint8"));

  ModelBuilder blocked(21);
  blocked.input("x", dims({2, 6}));
  blocked.initializer("scale", NDArray::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  auto &n = blocked.node("DequantizeLinear", {"x", "scale"}, {"y"}, "dq");
  attr(n, "block_size", int64_t{3});
  blocked.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(blocked.bytes()),
                      Contains("node 'dq' (DequantizeLinear): blocked quantization (block_size 3) is not supported"));
}

TEST_CASE("converters: Gelu 20, Mish 18 and LpNormalization", "[onnx][converters][opset20]") {
  const NDArray x = NDArray::random({3, 8}, Float(32), 88, -4, 4);
  const std::vector<float> xv = x.to_vector<float>();
  for (const std::string approx : {"none", "tanh"}) {
    CAPTURE(approx);
    ModelBuilder mb = unary_model(20, "Gelu", {3, 8});
    attr(last_node(mb), "approximate", approx);
    std::vector<double> want;
    for (float f : xv) {
      const double v = f;
      want.push_back(approx == "none"
                         ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
                         : 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    }
    check_close(run(mb, {{"x", x}}).at(0), want, 1e-5, 1e-6);
  }
  {
    std::vector<double> want;
    for (float f : xv) want.push_back(double(f) * std::tanh(std::log1p(std::exp(double(f)))));
    check_close(run(unary_model(18, "Mish", {3, 8}), {{"x", x}}).at(0), want, 1e-5, 1e-6);
  }
  // Row 1 all zeros: its norm along the last axis is 0, and the result there 0.
  std::vector<float> zv = xv;
  std::fill(zv.begin() + 8, zv.begin() + 16, 0.0f);
  const NDArray z = NDArray::from_vector(zv, {3, 8});
  for (int64_t p : {1, 2})
    for (int64_t axis : {0, -1}) {
      CAPTURE(p, axis);
      ModelBuilder mb = unary_model(22, "LpNormalization", {3, 8});
      attr(last_node(mb), "p", p);
      attr(last_node(mb), "axis", axis);
      std::vector<double> want(zv.size());
      for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 8; ++j) {
          double norm = 0;
          for (size_t k = 0; k < (axis == 0 ? 3 : 8); ++k) {
            const double v = zv[axis == 0 ? k * 8 + j : i * 8 + k];
            norm += p == 1 ? std::fabs(v) : v * v;
          }
          want[i * 8 + j] = norm == 0 ? 0.0 : zv[i * 8 + j] / (p == 1 ? norm : std::sqrt(norm));
        }
      check_close(run(mb, {{"x", z}}).at(0), want, 1e-5, 1e-6);
    }
  ModelBuilder bad = unary_model(22, "LpNormalization", {3, 8});
  attr(last_node(bad), "p", int64_t{3});
  REQUIRE_THROWS_WITH(tonnx::import_bytes(bad.bytes()), Contains("p is 3; it must be 1 or 2"));
}

TEST_CASE("converters: GroupNormalization 18 and 21", "[onnx][converters][opset21]") {
  const int64_t N = 2, C = 6, G = 3, S = 5;  // [N, C, S]
  const NDArray x = NDArray::random({N, C, S}, Float(32), 89, -2, 3);
  const std::vector<float> xv = x.to_vector<float>();
  for (int opset : {18, 21}) {
    CAPTURE(opset);
    const int64_t params = opset == 18 ? G : C;
    const NDArray scale = NDArray::random({params}, Float(32), 90), bias = NDArray::random({params}, Float(32), 91);
    const std::vector<float> sv = scale.to_vector<float>(), bv = bias.to_vector<float>();
    ModelBuilder mb(opset);
    mb.input("x", dims({N, C, S}));
    mb.initializer("scale", scale);
    mb.initializer("bias", bias);
    auto &n = mb.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}, "gn");
    attr(n, "num_groups", G);
    attr(n, "epsilon", 1e-3f);
    mb.output("y");
    std::vector<double> want(xv.size());
    const int64_t per = C / G * S;
    for (int64_t b = 0; b < N; ++b)
      for (int64_t g = 0; g < G; ++g) {
        const size_t at = size_t((b * G + g) * per);
        double mean = 0, var = 0;
        for (int64_t e = 0; e < per; ++e) mean += xv[at + size_t(e)] / double(per);
        for (int64_t e = 0; e < per; ++e) var += std::pow(xv[at + size_t(e)] - mean, 2) / double(per);
        for (int64_t e = 0; e < per; ++e) {
          const int64_t channel = g * (C / G) + e / S, p = opset == 18 ? g : channel;
          want[at + size_t(e)] =
              (xv[at + size_t(e)] - mean) / std::sqrt(var + double(1e-3f)) * sv[size_t(p)] + bv[size_t(p)];
        }
      }
    check_close(run(mb, {{"x", x}}).at(0), want, 1e-4, 1e-5);
  }
  ModelBuilder bad(21);
  bad.input("x", dims({N, C, S}));
  bad.initializer("scale", NDArray::random({C}, Float(32), 92));
  bad.initializer("bias", NDArray::random({C}, Float(32), 93));
  attr(bad.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}, "gn"), "num_groups", int64_t{4});
  bad.output("y");
  REQUIRE_THROWS_WITH(tonnx::import_bytes(bad.bytes()), Contains("num_groups 4 must divide the 6 channels"));
}

TEST_CASE("converters: opset 22 is the newest taken", "[onnx][converters][opset22]") {
  const NDArray x = NDArray::random({2, 3}, Float(32), 94);
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<double> want;
  for (float v : xv) want.push_back(std::max(v, 0.0f));
  check_close(run(unary_model(22, "Relu", {2, 3}), {{"x", x}}).at(0), want, 0, 0);
  REQUIRE_THROWS_WITH(tonnx::import_bytes(unary_model(23, "Relu", {2, 3}).bytes()),
                      Contains("ai.onnx opset 23 is not supported (ai.onnx 1 to 22)"));
}
