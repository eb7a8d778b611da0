// Converters of DepthToSpace and SpaceToDepth (reshape, transpose, reshape), Hardmax
// before and from opset 13, Gather, GatherElements, GatherND, ScatterElements and ScatterND
// with computed indices out of range, Tile, OneHot, Range and
// EyeLike (known at import), CumSum and Trilu with their known inputs, Trilu with a
// computed k, Dropout's mask, Pow of integers, Resize, Upsample, Pad in edge and reflect
// modes and TopK, on models built here, against plain loops and worked examples.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using onnx_test::attr;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::run;
using Catch::Matchers::Contains;
namespace tonnx = tensorir::onnx;

TEST_CASE("converters: DepthToSpace in both modes and SpaceToDepth", "[onnx][converters]") {
  const int64_t n = 2, ch = 8, h = 2, w = 3, b = 2;
  const NDArray x = NDArray::random({n, ch, h, w}, Float(32), 1);
  const std::vector<float> xv = x.to_vector<float>();
  for (const std::string mode : {"DCR", "CRD"}) {
    INFO("mode " << mode);
    ModelBuilder mb(13);
    mb.input("x", dims({n, ch, h, w}));
    auto &node = mb.node("DepthToSpace", {"x"}, {"y"});
    attr(node, "blocksize", b);
    attr(node, "mode", mode);
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    const int64_t oc = ch / (b * b);
    REQUIRE(y.shape() == std::vector<int64_t>{n, oc, h * b, w * b});
    std::vector<float> want;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t r = 0; r < h * b; ++r)
          for (int64_t s = 0; s < w * b; ++s) {
            const int64_t bh = r % b, bw = s % b;
            const int64_t src = mode == "DCR" ? (bh * b + bw) * oc + c : c * b * b + bh * b + bw;
            want.push_back(xv[size_t(((i * ch + src) * h + r / b) * w + s / b)]);
          }
    CHECK(y.to_vector<float>() == want);
  }
  // SpaceToDepth of [1, 2, 4, 6] by 2: channel (bh * 2 + bw) * C + c reads (c, 2r + bh, 2s + bw).
  const NDArray z = NDArray::random({1, 2, 4, 6}, Float(32), 2);
  const std::vector<float> zv = z.to_vector<float>();
  ModelBuilder mb(13);
  mb.input("z", dims({1, 2, 4, 6}));
  attr(mb.node("SpaceToDepth", {"z"}, {"y"}), "blocksize", int64_t{2});
  mb.output("y");
  const NDArray y = run(mb, {{"z", z}}).at(0);
  REQUIRE(y.shape() == std::vector<int64_t>{1, 8, 2, 3});
  std::vector<float> want;
  for (int64_t oc = 0; oc < 8; ++oc)
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t s = 0; s < 3; ++s) {
        const int64_t c = oc % 2, bh = oc / 2 / 2, bw = oc / 2 % 2;
        want.push_back(zv[size_t((c * 4 + 2 * r + bh) * 6 + 2 * s + bw)]);
      }
  CHECK(y.to_vector<float>() == want);
}

TEST_CASE("converters: Hardmax over the 2-D view before opset 13, one axis from 13", "[onnx][converters]") {
  // Values from {0, 1, 2} as floats: ties, where the first largest wins.
  const NDArray x = NDArray::random({2, 3, 4}, Int(32), 3, 0, 3);
  const std::vector<int32_t> iv = x.to_vector<int32_t>();
  const NDArray xf = NDArray::from_vector<float>(std::vector<float>(iv.begin(), iv.end()), {2, 3, 4});
  // Opset 11, axis 1: each batch's 12 values are one row. Opset 13, axis 1: columns of 3.
  for (int opset : {11, 13}) {
    INFO("opset " << opset);
    ModelBuilder mb(opset);
    mb.input("x", dims({2, 3, 4}));
    attr(mb.node("Hardmax", {"x"}, {"y"}), "axis", int64_t{1});
    mb.output("y");
    const NDArray y = run(mb, {{"x", xf}}).at(0);
    std::vector<float> want(24, 0.0f);
    if (opset == 11) {
      for (size_t bt = 0; bt < 2; ++bt) {
        size_t best = bt * 12;
        for (size_t e = bt * 12; e < bt * 12 + 12; ++e)
          if (iv[e] > iv[best]) best = e;
        want[best] = 1;
      }
    } else {
      for (size_t bt = 0; bt < 2; ++bt)
        for (size_t col = 0; col < 4; ++col) {
          size_t best = bt * 12 + col;
          for (size_t r = 1; r < 3; ++r)
            if (iv[bt * 12 + r * 4 + col] > iv[best]) best = bt * 12 + r * 4 + col;
          want[best] = 1;
        }
    }
    CHECK(y.to_vector<float>() == want);
  }
}

TEST_CASE("converters: Gather with computed indices, Tile with known repeats", "[onnx][converters]") {
  const NDArray x = NDArray::random({3, 4}, Float(32), 4);
  const std::vector<float> xv = x.to_vector<float>();
  const NDArray idx = NDArray::from_vector<int64_t>({3, -1, 0, 1, -4, 2}, {2, 3});
  {  // Gather axis 1 with indices [2, 3] from a graph input: [3, 2, 3].
    ModelBuilder mb(13);
    mb.input("x", dims({3, 4}));
    mb.input("i", dims({2, 3}), ::onnx::TensorProto::INT64);
    attr(mb.node("Gather", {"x", "i"}, {"y"}), "axis", int64_t{1});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}, {"i", idx}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{3, 2, 3});
    const std::vector<int64_t> iv = idx.to_vector<int64_t>();
    std::vector<float> want;
    for (size_t r = 0; r < 3; ++r)
      for (int64_t k : iv) want.push_back(xv[r * 4 + size_t(k < 0 ? k + 4 : k)]);
    CHECK(y.to_vector<float>() == want);
  }
  {  // Tile [3, 4] by [2, 3]: [6, 12].
    ModelBuilder mb(13);
    mb.input("x", dims({3, 4}));
    mb.initializer("reps", NDArray::from_vector<int64_t>({2, 3}, {2}));
    mb.node("Tile", {"x", "reps"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{6, 12});
    std::vector<float> want;
    for (size_t r = 0; r < 6; ++r)
      for (size_t c = 0; c < 12; ++c) want.push_back(xv[(r % 3) * 4 + c % 4]);
    CHECK(y.to_vector<float>() == want);
  }
}

TEST_CASE("converters: computed indices out of range fail the run (Gather, GatherElements, GatherND)",
          "[onnx][converters]") {
  const NDArray x = NDArray::random({3, 4}, Float(32), 5);
  {
    ModelBuilder mb(13);
    mb.input("x", dims({3, 4}));
    mb.input("i", dims({2}), ::onnx::TensorProto::INT64);
    attr(mb.node("Gather", {"x", "i"}, {"y"}), "axis", int64_t{1});
    mb.output("y");
    for (int64_t bad : {int64_t{4}, int64_t{-5}, int64_t{1} << 32})
      CHECK_THROWS_WITH(run(mb, {{"x", x}, {"i", NDArray::from_vector<int64_t>({0, bad}, {2})}}),
                        Contains("take 'y': an index in 'i' is outside [-4, 4), the extent of axis 1 of 'x'"));
    CHECK(run(mb, {{"x", x}, {"i", NDArray::from_vector<int64_t>({0, -4}, {2})}}).at(0).shape() ==
          std::vector<int64_t>{3, 2});
  }
  {
    ModelBuilder mb(13);
    mb.input("x", dims({3, 4}));
    mb.input("i", dims({3, 2}), ::onnx::TensorProto::INT32);
    attr(mb.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{0});
    mb.output("y");
    CHECK_THROWS_WITH(run(mb, {{"x", x}, {"i", NDArray::from_vector<int32_t>({0, 1, 2, -3, 3, 0}, {3, 2})}}),
                      Contains("gather_elements 'y': an index in 'i' is outside [-3, 3)"));
  }
  {
    ModelBuilder mb(13);
    mb.input("x", dims({3, 4}));
    mb.input("i", dims({2, 2}), ::onnx::TensorProto::INT64);
    mb.node("GatherND", {"x", "i"}, {"y"});
    mb.output("y");
    CHECK_THROWS_WITH(run(mb, {{"x", x}, {"i", NDArray::from_vector<int64_t>({0, 3, 1, 4}, {2, 2})}}),
                      Contains("gather_nd 'y': an index in 'i' is outside [-4, 4), the extent of axis 1 of 'x'"));
  }
}

TEST_CASE("converters: scatter indices out of range fail the run (ScatterElements, ScatterND)", "[onnx][converters]") {
  const NDArray x = NDArray::random({3, 4}, Float(32), 6);
  {
    ModelBuilder mb(16);
    mb.input("x", dims({3, 4}));
    mb.input("i", dims({3, 2}), ::onnx::TensorProto::INT64);
    mb.input("u", dims({3, 2}));
    ::onnx::NodeProto &node = mb.node("ScatterElements", {"x", "i", "u"}, {"y"});
    attr(node, "axis", int64_t{1});
    attr(node, "reduction", std::string("add"));
    mb.output("y");
    const NDArray u = NDArray::random({3, 2}, Float(32), 7);
    const graph::CompiledModel model = graph::build(tonnx::import_bytes(mb.bytes()), "llvm");
    for (int64_t bad : {int64_t{4}, int64_t{-5}, int64_t{1} << 32})
      CHECK_THROWS_WITH(
          model.run({{"x", x}, {"i", NDArray::from_vector<int64_t>({0, 1, 2, 3, -1, bad}, {3, 2})}, {"u", u}}),
          Contains("scatter_elements 'y': an index in 'i' is outside [-4, 4), the extent of axis 1 of 'x'"));
    // The extremes of the range are accepted, by the same model after its failures.
    const std::vector<float> xv = x.to_vector<float>(), uv = u.to_vector<float>();
    const std::vector<int64_t> iv = {0, 3, -4, -1, 2, 2};
    std::vector<float> want = xv;
    for (size_t r = 0; r < 3; ++r)
      for (size_t c = 0; c < 2; ++c) {
        const int64_t k = iv[r * 2 + c];
        want[r * 4 + size_t(k < 0 ? k + 4 : k)] += uv[r * 2 + c];
      }
    const NDArray y = model.run({{"x", x}, {"i", NDArray::from_vector<int64_t>(iv, {3, 2})}, {"u", u}}).at(0);
    const std::vector<float> got = y.to_vector<float>();
    REQUIRE(got.size() == want.size());
    for (size_t e = 0; e < got.size(); ++e) CHECK(got[e] == Approx(want[e]).epsilon(1e-6));
  }
  {
    ModelBuilder mb(16);
    mb.input("x", dims({3, 4}));
    mb.input("i", dims({2, 2}), ::onnx::TensorProto::INT64);
    mb.input("u", dims({2}));
    mb.node("ScatterND", {"x", "i", "u"}, {"y"});
    mb.output("y");
    const NDArray u = NDArray::random({2}, Float(32), 8);
    CHECK_THROWS_WITH(run(mb, {{"x", x}, {"i", NDArray::from_vector<int64_t>({0, 1, -4, 0}, {2, 2})}, {"u", u}}),
                      Contains("scatter_nd 'y': an index in 'i' is outside [-3, 3), the extent of axis 0 of 'x'"));
    CHECK_THROWS_WITH(run(mb, {{"x", x}, {"i", NDArray::from_vector<int64_t>({0, 4, 1, 1}, {2, 2})}, {"u", u}}),
                      Contains("scatter_nd 'y': an index in 'i' is outside [-4, 4), the extent of axis 1 of 'x'"));
  }
}

TEST_CASE("converters: OneHot along an axis, negative and out-of-range indices", "[onnx][converters]") {
  const NDArray idx = NDArray::from_vector<int64_t>({0, -1, 2, 5, -3, 1}, {2, 3});
  const std::vector<int64_t> iv = idx.to_vector<int64_t>();
  ModelBuilder mb(11);
  mb.input("i", dims({2, 3}), ::onnx::TensorProto::INT64);
  mb.initializer("depth", NDArray::from_vector<float>({4.0f}, {}));
  mb.initializer("values", NDArray::from_vector<float>({-1.0f, 7.0f}, {2}));
  attr(mb.node("OneHot", {"i", "depth", "values"}, {"y"}), "axis", int64_t{1});
  mb.output("y");
  const NDArray y = run(mb, {{"i", idx}}).at(0);
  REQUIRE(y.shape() == std::vector<int64_t>{2, 4, 3});
  std::vector<float> want;
  for (size_t a = 0; a < 2; ++a)
    for (int64_t d = 0; d < 4; ++d)
      for (size_t c = 0; c < 3; ++c) {
        int64_t k = iv[a * 3 + c];
        if (k < 0) k += 4;
        want.push_back(k == d ? 7.0f : -1.0f);
      }
  CHECK(y.to_vector<float>() == want);
}

TEST_CASE("converters: Range and EyeLike fold at import, CumSum and Trilu read known inputs",
          "[onnx][converters]") {
  {  // Range(10, 1, -3) = [10, 7, 4] feeds an Add with a computed value.
    ModelBuilder mb(13);
    mb.input("x", dims({3}), ::onnx::TensorProto::INT64);
    mb.initializer("start", NDArray::from_vector<int64_t>({10}, {}));
    mb.initializer("limit", NDArray::from_vector<int64_t>({1}, {}));
    mb.initializer("delta", NDArray::from_vector<int64_t>({-3}, {}));
    mb.node("Range", {"start", "limit", "delta"}, {"r"});
    mb.node("Add", {"x", "r"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", NDArray::from_vector<int64_t>({1, 2, 3}, {3})}}).at(0);
    CHECK(y.to_vector<int64_t>() == std::vector<int64_t>{11, 9, 7});
  }
  {  // EyeLike with k = 1 as int32, added to a computed value.
    ModelBuilder mb(13);
    mb.input("x", dims({3, 4}), ::onnx::TensorProto::INT32);
    attr(mb.node("EyeLike", {"x"}, {"e"}), "k", int64_t{1});
    mb.node("Add", {"x", "e"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", NDArray::from_vector<int32_t>(std::vector<int32_t>(12, 0), {3, 4})}}).at(0);
    CHECK(y.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  }
  {  // CumSum along axis -1 (an initializer), exclusive and reverse.
    ModelBuilder mb(14);
    mb.input("x", dims({2, 3}));
    mb.initializer("axis", NDArray::from_vector<int64_t>({-1}, {}));
    auto &node = mb.node("CumSum", {"x", "axis"}, {"y"});
    attr(node, "exclusive", int64_t{1});
    attr(node, "reverse", int64_t{1});
    mb.output("y");
    const NDArray y = run(mb, {{"x", NDArray::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})}}).at(0);
    CHECK(y.to_vector<float>() == std::vector<float>{5, 3, 0, 11, 6, 0});
  }
  {  // Trilu lower with k = -1 (an initializer).
    ModelBuilder mb(14);
    mb.input("x", dims({3, 3}));
    mb.initializer("k", NDArray::from_vector<int64_t>({-1}, {}));
    attr(mb.node("Trilu", {"x", "k"}, {"y"}), "upper", int64_t{0});
    mb.output("y");
    const NDArray y = run(mb, {{"x", NDArray::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3})}}).at(0);
    CHECK(y.to_vector<float>() == std::vector<float>{0, 0, 0, 4, 0, 0, 7, 8, 0});
  }
}

TEST_CASE("converters: what the indexing converters refuse", "[onnx][converters]") {
  {  // Mod of floats needs fmod = 1.
    ModelBuilder mb(13);
    mb.input("a", dims({3}));
    mb.input("b", dims({3}));
    mb.node("Mod", {"a", "b"}, {"y"});
    mb.output("y");
    CHECK_THROWS(tonnx::import_bytes(mb.bytes()));
  }
  {  // Range of computed values.
    ModelBuilder mb(13);
    mb.input("s", dims({}), ::onnx::TensorProto::INT64);
    mb.initializer("limit", NDArray::from_vector<int64_t>({5}, {}));
    mb.initializer("delta", NDArray::from_vector<int64_t>({1}, {}));
    mb.node("Range", {"s", "limit", "delta"}, {"y"});
    mb.output("y");
    REQUIRE_THROWS_AS(tonnx::import_bytes(mb.bytes()), tonnx::UnsupportedError);
  }
}

TEST_CASE("converters: Trilu with a computed k, Dropout's mask, Pow of integers", "[onnx][converters]") {
  {
    ModelBuilder mb(14);
    mb.input("x", dims({2, 3}));
    mb.input("k", dims({}), ::onnx::TensorProto::INT64);
    mb.node("Trilu", {"x", "k"}, {"y"});
    mb.output("y");
    const NDArray x = NDArray::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    const graph::CompiledModel m = graph::build(tonnx::import_bytes(mb.bytes()), "llvm");
    CHECK(m.run({{"x", x}, {"k", NDArray::from_vector<int64_t>({1}, {})}}).at(0).to_vector<float>() ==
          std::vector<float>{0, 2, 3, 0, 0, 6});
    CHECK(m.run({{"x", x}, {"k", NDArray::from_vector<int64_t>({-1}, {})}}).at(0).to_vector<float>() ==
          std::vector<float>{1, 2, 3, 4, 5, 6});
  }
  {
    ModelBuilder mb(13);
    mb.input("x", dims({2, 2}));
    mb.node("Dropout", {"x"}, {"y", "mask"});
    mb.output("y");
    mb.output("mask");
    const graph::Outputs out = run(mb, {{"x", NDArray::from_vector<float>({1, 2, 3, 4}, {2, 2})}});
    CHECK(out.at(0).to_vector<float>() == std::vector<float>{1, 2, 3, 4});
    CHECK(out.at(1).dtype().is_bool());
    CHECK(out.at(1).to_vector<uint8_t>() == std::vector<uint8_t>{1, 1, 1, 1});
  }
  {
    ModelBuilder mb(13);
    mb.input("x", dims({4}), ::onnx::TensorProto::INT64);
    mb.input("e", dims({4}), ::onnx::TensorProto::INT32);
    mb.node("Pow", {"x", "e"}, {"y"});
    mb.output("y");
    const graph::Outputs out = run(mb, {{"x", NDArray::from_vector<int64_t>({2, -3, 5, 7}, {4})},
                                        {"e", NDArray::from_vector<int32_t>({10, 3, 0, 2}, {4})}});
    CHECK(out.at(0).dtype() == Int(64));
    CHECK(out.at(0).to_vector<int64_t>() == std::vector<int64_t>{1024, -27, 1, 49});
  }
}

TEST_CASE("converters: Resize by known sizes or scales, Upsample", "[onnx][converters]") {
  const NDArray x = NDArray::from_vector<float>({1, 2, 3, 4}, {1, 1, 2, 2});
  {  // Resize 13, sizes [1, 1, 3, 4], linear with align_corners.
    ModelBuilder mb(13);
    mb.input("x", dims({1, 1, 2, 2}));
    mb.initializer("sizes", NDArray::from_vector<int64_t>({1, 1, 3, 4}, {4}));
    auto &node = mb.node("Resize", {"x", "", "", "sizes"}, {"y"});
    attr(node, "mode", std::string("linear"));
    attr(node, "coordinate_transformation_mode", std::string("align_corners"));
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{1, 1, 3, 4});
    std::vector<float> want;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) want.push_back(float(1 + j / 3.0 + 2 * (i / 2.0)));
    const std::vector<float> got = y.to_vector<float>();
    for (size_t e = 0; e < want.size(); ++e) CHECK(std::fabs(got[e] - want[e]) < 1e-5);
  }
  {  // Upsample 9 by scales [1, 1, 2, 3], nearest: each element repeated.
    ModelBuilder mb(9);
    mb.input("x", dims({1, 1, 2, 2}));
    mb.initializer("scales", NDArray::from_vector<float>({1, 1, 2, 3}, {4}));
    mb.node("Upsample", {"x", "scales"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{1, 1, 4, 6});
    std::vector<float> want;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) want.push_back(float(1 + (i / 2) * 2 + j / 3));
    CHECK(y.to_vector<float>() == want);
  }
  {  // Resize 10 shrinking rows by 0.5 and growing columns by 1.6 (0.6 shrinks): nearest
     // rounds the source position up along an axis that shrinks and down along one that
     // grows (ONNX's resize_downsample_nearest: [[1, 2, 3, 4], [5, 6, 7, 8]] by 0.6 is [[1, 3]]).
    for (const auto &[sh, sw] : {std::pair{0.5, 1.6}, {0.6, 0.6}, {1.0, 0.6}}) {
      INFO("scales " << sh << ", " << sw);
      const int64_t h = 4, w = 5;
      std::vector<float> xv(size_t(h * w));
      for (size_t e = 0; e < xv.size(); ++e) xv[e] = float(e);
      ModelBuilder mb(10);
      mb.input("x", dims({1, 1, h, w}));
      mb.initializer("scales", NDArray::from_vector<float>({1, 1, float(sh), float(sw)}, {4}));
      mb.node("Resize", {"x", "scales"}, {"y"});
      mb.output("y");
      const NDArray y = run(mb, {{"x", NDArray::from_vector<float>(xv, {1, 1, h, w})}}).at(0);
      const int64_t oh = int64_t(std::floor(h * float(sh))), ow = int64_t(std::floor(w * float(sw)));
      REQUIRE(y.shape() == std::vector<int64_t>{1, 1, oh, ow});
      const auto source = [](int64_t o, float scale, int64_t len) {
        const double p = double(o) / double(scale);
        const int64_t i = int64_t(scale < 1 ? std::ceil(p) : std::floor(p));
        return std::min(i, len - 1);
      };
      std::vector<float> want;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) want.push_back(xv[size_t(source(i, float(sh), h) * w + source(j, float(sw), w))]);
      CHECK(y.to_vector<float>() == want);
    }
  }
}

TEST_CASE("converters: Pad in edge mode ignores a constant_value computed at run time", "[onnx][converters]") {
  // The model's constant_value is a graph input: only constant mode would read it.
  ModelBuilder mb(13);
  mb.input("x", dims({2, 3}));
  mb.input("cv", {});
  mb.initializer("pads", NDArray::from_vector<int64_t>({1, 0, 1, 0}, {4}));
  attr(mb.node("Pad", {"x", "pads", "cv"}, {"y"}), "mode", std::string("edge"));
  mb.output("y");
  const NDArray x = NDArray::random({2, 3}, Float(32), 5);
  const std::vector<float> xv = x.to_vector<float>();
  std::vector<double> want;  // row 0, rows 0 and 1, row 1
  for (int64_t r : {0, 0, 1, 1})
    for (int64_t col = 0; col < 3; ++col) want.push_back(xv[size_t(r * 3 + col)]);
  const NDArray y = run(mb, {{"x", x}, {"cv", NDArray::from_vector<float>({9.0f}, {})}}).at(0);
  REQUIRE(y.shape() == std::vector<int64_t>{4, 3});
  onnx_test::check_close(y, want);
}

TEST_CASE("converters: Pad with negative pads removes elements, in every mode", "[onnx][converters]") {
  // ONNX's definition: pad by the positive pads, then remove the negative ones' elements.
  const int64_t h = 4, w = 5;
  std::vector<float> xv(size_t(h * w));
  for (size_t e = 0; e < xv.size(); ++e) xv[e] = float(e) * 0.5f - 3;
  const auto reference = [&](const std::vector<int64_t> &p, const std::string &mode) {
    const int64_t pb[2] = {std::max<int64_t>(p[0], 0), std::max<int64_t>(p[1], 0)},
                  pa[2] = {std::max<int64_t>(p[2], 0), std::max<int64_t>(p[3], 0)};
    const int64_t ph = h + pb[0] + pa[0], pw = w + pb[1] + pa[1];
    const auto source = [&](int64_t i, int64_t n) {  // the element a padded position reads, or -1
      if (i >= 0 && i < n) return i;
      if (mode == "constant") return int64_t{-1};
      if (mode == "edge") return i < 0 ? int64_t{0} : n - 1;
      return i < 0 ? -i : 2 * (n - 1) - i;  // reflect
    };
    std::vector<float> out;
    for (int64_t i = std::max<int64_t>(-p[0], 0); i < ph - std::max<int64_t>(-p[2], 0); ++i)
      for (int64_t j = std::max<int64_t>(-p[1], 0); j < pw - std::max<int64_t>(-p[3], 0); ++j) {
        const int64_t si = source(i - pb[0], h), sj = source(j - pb[1], w);
        out.push_back(si < 0 || sj < 0 ? 7.0f : xv[size_t(si * w + sj)]);
      }
    return out;
  };
  const std::vector<std::vector<int64_t>> cases = {
      {-1, 0, 0, 0}, {0, -2, -1, 0}, {-1, 2, 1, -2}, {2, -1, -1, 1}, {-3, -4, 0, 0}, {1, 1, -1, -1}};
  for (const std::string mode : {"constant", "edge", "reflect"})
    for (const std::vector<int64_t> &p : cases) {
      INFO(mode << " pads " << p[0] << ", " << p[1] << ", " << p[2] << ", " << p[3]);
      ModelBuilder mb(13);
      mb.input("x", dims({h, w}));
      mb.initializer("pads", NDArray::from_vector<int64_t>(p, {4}));
      mb.initializer("value", NDArray::from_vector<float>({7}, {}));
      attr(mb.node("Pad", {"x", "pads", "value"}, {"y"}), "mode", mode);
      mb.output("y");
      const NDArray y = run(mb, {{"x", NDArray::from_vector<float>(xv, {h, w})}}).at(0);
      const int64_t oh = h + p[0] + p[2], ow = w + p[1] + p[3];
      REQUIRE(y.shape() == std::vector<int64_t>{oh, ow});
      CHECK(y.to_vector<float>() == reference(p, mode));
    }
  // Every row removed: an empty result [0, w].
  ModelBuilder mb(13);
  mb.input("x", dims({h, w}));
  mb.initializer("pads", NDArray::from_vector<int64_t>({-2, 0, -2, 0}, {4}));
  mb.node("Pad", {"x", "pads"}, {"y"});
  mb.output("y");
  const NDArray y = run(mb, {{"x", NDArray::from_vector<float>(xv, {h, w})}}).at(0);
  CHECK(y.shape() == std::vector<int64_t>{0, w});
  CHECK(y.dtype() == Float(32));
}

TEST_CASE("converters: Pad in edge and reflect modes, TopK with a known k", "[onnx][converters]") {
  const NDArray x = NDArray::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  for (const std::string mode : {"edge", "reflect"}) {
    INFO("mode " << mode);
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3}));
    mb.initializer("pads", NDArray::from_vector<int64_t>({1, 2, 0, 1}, {4}));  // rows 1 before; columns 2, 1
    attr(mb.node("Pad", {"x", "pads"}, {"y"}), "mode", mode);
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{3, 6});
    // Rows: edge repeats row 0, reflect mirrors row 1; columns likewise.
    const std::vector<float> want = mode == "edge"
                                        ? std::vector<float>{1, 1, 1, 2, 3, 3, 1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6}
                                        : std::vector<float>{6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5};
    CHECK(y.to_vector<float>() == want);
  }
  ModelBuilder mb(11);
  mb.input("x", dims({2, 3}));
  mb.initializer("k", NDArray::from_vector<int64_t>({2}, {1}));
  attr(mb.node("TopK", {"x", "k"}, {"v", "i"}), "largest", int64_t{0});
  mb.output("v");
  mb.output("i", {}, ::onnx::TensorProto::INT64);
  const graph::Outputs out = run(mb, {{"x", NDArray::from_vector<float>({3, 1, 2, 5, 5, 4}, {2, 3})}});
  CHECK(out.at(0).to_vector<float>() == std::vector<float>{1, 2, 4, 5});
  CHECK(out.at(1).to_vector<int64_t>() == std::vector<int64_t>{1, 2, 2, 0});
}

// Repeats beyond a few copies broadcast rather than concatenate: the same values.
TEST_CASE("converters: Tile and edge Pad with many copies of a computed value", "[onnx][converters]") {
  const NDArray x = NDArray::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  {
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3}));
    mb.initializer("r", NDArray::from_vector<int64_t>({20, 2}, {2}));
    mb.node("Tile", {"x", "r"}, {"y"});
    mb.output("y");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{40, 6});
    std::vector<float> want;
    for (int64_t i = 0; i < 40; ++i)
      for (int64_t j = 0; j < 6; ++j) want.push_back(float(1 + (i % 2) * 3 + j % 3));
    CHECK(y.to_vector<float>() == want);
  }
  {
    ModelBuilder mb(13);
    mb.input("x", dims({2, 3}), ::onnx::TensorProto::INT32);
    mb.initializer("p", NDArray::from_vector<int64_t>({0, 17, 0, 20}, {4}));  // columns: 17 before, 20 after
    attr(mb.node("Pad", {"x", "p"}, {"y"}), "mode", std::string("edge"));
    mb.output("y", {}, ::onnx::TensorProto::INT32);
    const NDArray y = run(mb, {{"x", NDArray::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3})}}).at(0);
    REQUIRE(y.shape() == std::vector<int64_t>{2, 40});
    std::vector<int32_t> want;
    for (int32_t i = 0; i < 2; ++i)
      for (int32_t j = 0; j < 40; ++j) want.push_back(1 + i * 3 + std::clamp(j - 17, 0, 2));
    CHECK(y.to_vector<int32_t>() == want);
  }
}

namespace {

// Positions of the k first elements of `v` in TopK's order: NaN above every number
// (first when largest, last otherwise), ties by position.
std::vector<int64_t> topk_reference(const std::vector<float> &v, int64_t k, bool largest) {
  std::vector<int64_t> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = int64_t(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
    const float a = v[size_t(i)], b = v[size_t(j)];
    if (std::isnan(a) || std::isnan(b)) return largest ? std::isnan(a) && !std::isnan(b) : !std::isnan(a) && std::isnan(b);
    return largest ? a > b : a < b;
  });
  order.resize(size_t(k));
  return order;
}

}  // namespace

TEST_CASE("converters: TopK with NaN gives a permutation of valid positions", "[onnx][converters]") {
  const float nan = std::nanf("");
  for (const bool largest : {true, false}) {
    INFO("largest " << largest);
    auto topk = [&](const NDArray &x, int64_t k) {
      const int64_t rows = x.shape()[0], n = x.shape()[1];
      ModelBuilder mb(11);
      mb.input("x", dims({rows, n}));
      mb.initializer("k", NDArray::from_vector<int64_t>({k}, {1}));
      attr(mb.node("TopK", {"x", "k"}, {"v", "i"}), "largest", int64_t{largest});
      mb.output("v");
      mb.output("i", {}, ::onnx::TensorProto::INT64);
      return run(mb, {{"x", x}});
    };
    const graph::Outputs small = topk(NDArray::from_vector<float>({1, nan, 2}, {1, 3}), 3);
    CHECK(small.at(1).to_vector<int64_t>() == (largest ? std::vector<int64_t>{1, 2, 0} : std::vector<int64_t>{0, 2, 1}));
    // Random rows with NaNs, repeated values and both zeros; k the whole row and part of it.
    const int64_t rows = 16, n = 9;
    std::vector<float> v = NDArray::random({rows, n}, Float(32), 7).to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i) {
      if (i % 4 == 1) v[i] = nan;
      if (i % 7 == 3) v[i] = std::round(v[i] * 2);  // ties
      if (i % 11 == 5) v[i] = -0.0f;
    }
    for (const int64_t k : {n, int64_t{4}}) {
      INFO("k " << k);
      const graph::Outputs out = topk(NDArray::from_vector<float>(v, {rows, n}), k);
      const std::vector<int64_t> got = out.at(1).to_vector<int64_t>();
      const std::vector<float> vals = out.at(0).to_vector<float>();
      for (int64_t r = 0; r < rows; ++r) {
        const std::vector<float> row(v.begin() + r * n, v.begin() + (r + 1) * n);
        const std::vector<int64_t> want = topk_reference(row, k, largest);
        const std::vector<int64_t> row_got(got.begin() + r * k, got.begin() + (r + 1) * k);
        INFO("row " << r);
        CHECK(row_got == want);
        for (int64_t j = 0; j < k; ++j) {
          const float w = row[size_t(want[size_t(j)])], g = vals[size_t(r * k + j)];
          CHECK((std::isnan(w) ? std::isnan(g) : g == w));
        }
      }
    }
  }
}

TEST_CASE("converters: ScatterElements and ScatterND with reduction max and min (opset 18)", "[onnx][converters]") {
  // Duplicate indices, and data holding infinities that no update reaches: they stay.
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> xv = {-inf, 2, 7, inf, -3, 0, 5, 1, 4};  // [3, 3]
  const NDArray x = NDArray::from_vector<float>(xv, {3, 3});
  const NDArray u = NDArray::random({4, 3}, Float(32), 9, -6, 6);
  const std::vector<float> uv = u.to_vector<float>();
  const std::vector<int64_t> rows = {2, 0, 2, -2};  // ScatterND: whole rows, row 2 twice
  for (const std::string reduction : {"max", "min"}) {
    INFO("ScatterND reduction " << reduction);
    ModelBuilder mb(18);
    mb.input("x", dims({3, 3}));
    mb.initializer("i", NDArray::from_vector<int64_t>(rows, {4, 1}));
    mb.input("u", dims({4, 3}));
    attr(mb.node("ScatterND", {"x", "i", "u"}, {"y"}), "reduction", reduction);
    mb.output("y");
    std::vector<float> want = xv;
    for (size_t q = 0; q < rows.size(); ++q)
      for (size_t c = 0; c < 3; ++c) {
        float &w = want[size_t(rows[q] < 0 ? rows[q] + 3 : rows[q]) * 3 + c];
        w = reduction == "max" ? std::max(w, uv[q * 3 + c]) : std::min(w, uv[q * 3 + c]);
      }
    CHECK(run(mb, {{"x", x}, {"u", u}}).at(0).to_vector<float>() == want);
  }
  // ScatterElements along axis 0 of the first two columns only: column 2 keeps its data.
  const std::vector<int64_t> iv = {1, 1, 1, 0, 0, 2, 1, 2};  // [4, 2]
  const NDArray u2 = NDArray::random({4, 2}, Float(32), 10, -6, 6);
  const std::vector<float> u2v = u2.to_vector<float>();
  for (const std::string reduction : {"max", "min"}) {
    INFO("ScatterElements reduction " << reduction);
    ModelBuilder mb(18);
    mb.input("x", dims({3, 3}));
    mb.initializer("i", NDArray::from_vector<int64_t>(iv, {4, 2}));
    mb.input("u", dims({4, 2}));
    ::onnx::NodeProto &node = mb.node("ScatterElements", {"x", "i", "u"}, {"y"});
    attr(node, "axis", int64_t{0});
    attr(node, "reduction", reduction);
    mb.output("y");
    std::vector<float> want = xv;
    for (size_t q = 0; q < iv.size(); ++q) {
      float &w = want[size_t(iv[q]) * 3 + q % 2];
      w = reduction == "max" ? std::max(w, u2v[q]) : std::min(w, u2v[q]);
    }
    CHECK(run(mb, {{"x", x}, {"u", u2}}).at(0).to_vector<float>() == want);
  }
}

TEST_CASE("converters: a scatter's reduction before the opset that defines it is refused", "[onnx][converters]") {
  // add and mul from opset 16, max and min from 18 (ONNX Runtime refuses the models too).
  for (const auto &[reduction, opset, since] : std::vector<std::tuple<std::string, int, int>>{
           {"add", 15, 16}, {"mul", 13, 16}, {"max", 16, 18}, {"min", 17, 18}}) {
    for (const std::string op : {"ScatterElements", "ScatterND"}) {
      CAPTURE(reduction, opset, op);
      ModelBuilder mb(opset);
      mb.input("x", dims({3, 3}));
      mb.initializer("i", NDArray::from_vector<int64_t>({2, 0, 1}, op == "ScatterND" ? std::vector<int64_t>{3, 1}
                                                                                      : std::vector<int64_t>{1, 3}));
      mb.input("u", dims(op == "ScatterND" ? std::vector<int64_t>{3, 3} : std::vector<int64_t>{1, 3}));
      attr(mb.node(op, {"x", "i", "u"}, {"y"}, "s"), "reduction", reduction);
      mb.output("y");
      CHECK_THROWS_WITH(tonnx::import_bytes(mb.bytes()),
                        Contains("node 's' (" + op + "): reduction '" + reduction + "' needs opset " +
                                 std::to_string(since)));
    }
  }
}

namespace {

// Plain resampling of `x` (of `shape`, row-major) along `axis` to `n` elements at `scale`
// with half-pixel centres: nearest (rounded half down) or linear (clamped at the edges),
// as ONNX's reference resizes, one axis after another.
std::vector<double> resample_axis(const std::vector<double> &x, std::vector<int64_t> &shape, size_t axis, int64_t n,
                                  double scale, bool linear) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
  const int64_t len = shape[axis];
  std::vector<double> y(size_t(outer * n * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) {
        const double src = (double(k) + 0.5) / scale - 0.5;
        auto at = [&](int64_t j) { return x[size_t((o * len + std::clamp<int64_t>(j, 0, len - 1)) * inner + i)]; };
        double v;
        if (!linear) {
          v = at(int64_t(std::ceil(src - 0.5)));
        } else {
          const double f = std::floor(src), w = src - f;
          v = (1 - w) * at(int64_t(f)) + w * at(int64_t(f) + 1);
        }
        y[size_t((o * n + k) * inner + i)] = v;
      }
  shape[axis] = n;
  return y;
}

}  // namespace

TEST_CASE("converters: Resize of a volume and of leading dimensions (axis by axis)", "[onnx][converters]") {
  const std::vector<int64_t> in = {1, 2, 3, 4, 5};
  const NDArray x = NDArray::random(in, Float(32), 95);
  const std::vector<float> xf = x.to_vector<float>();
  struct Case {
    std::string mode;
    std::vector<int64_t> sizes;
  };
  // Depth, height and width (trilinear); then the channels too, and the channels alone.
  for (const Case &k : std::vector<Case>{{"linear", {1, 2, 5, 3, 7}},
                                         {"nearest", {1, 2, 5, 3, 7}},
                                         {"nearest", {1, 5, 2, 6, 5}},
                                         {"linear", {1, 3, 3, 4, 5}}}) {
    CAPTURE(k.mode, k.sizes);
    ModelBuilder mb(13);
    mb.input("x", dims(in));
    mb.initializer("sizes", NDArray::from_vector<int64_t>(k.sizes, {5}));
    attr(mb.node("Resize", {"x", "", "", "sizes"}, {"y"}, "rs"), "mode", k.mode);
    mb.output("y");
    std::vector<double> want(xf.begin(), xf.end());
    std::vector<int64_t> shape = in;
    for (size_t a = 0; a < in.size(); ++a)
      if (k.sizes[a] != in[a])
        want = resample_axis(want, shape, a, k.sizes[a], double(k.sizes[a]) / double(in[a]), k.mode == "linear");
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == k.sizes);
    onnx_test::check_close(y, want, 1e-5, 1e-6);
  }
}
