// Converters of the trigonometric and hyperbolic functions and their inverses (against the
// C++ standard library on random data in each one's domain), float16 and unsigned inputs,
// Cast to float16, BitShift, the window functions and Det, on models built here.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <tuple>

#include "onnx/onnx_test_util.h"

using namespace tensorir;
using onnx_test::attr;
using onnx_test::check_close;
using onnx_test::dims;
using onnx_test::ModelBuilder;
using onnx_test::run;
using Catch::Matchers::Contains;
namespace tonnx = tensorir::onnx;

namespace {

// Unsigned values in an array of type t.
NDArray unsigned_array(const std::vector<int64_t> &v, const std::vector<int64_t> &shape, Type t) {
  NDArray a = NDArray::empty(shape, t);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint64_t x = uint64_t(v[i]);
    std::memcpy(static_cast<char *>(a.data()) + i * size_t(t.bytes()), &x, size_t(t.bytes()));  // little-endian
  }
  return a;
}

// An unsigned array's values.
std::vector<int64_t> unsigned_values(const NDArray &a) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.numel(); ++i) {
    uint64_t x = 0;
    std::memcpy(&x, static_cast<const char *>(a.data()) + i * a.dtype().bytes(), size_t(a.dtype().bytes()));
    out.push_back(int64_t(x));
  }
  return out;
}

// y = op(x) for x of shape [3, 41] in [lo, hi), float32 or float64.
void check_unary(const std::string &op, double (*ref)(double), double lo, double hi, Type t = Float(32)) {
  INFO(op << " on " << t);
  ModelBuilder mb(13);
  mb.input("x", dims({3, 41}), onnx_test::onnx_type(t));
  mb.node(op, {"x"}, {"y"});
  mb.output("y", {}, onnx_test::onnx_type(t));
  const NDArray x = NDArray::random({3, 41}, t, 7, lo, hi);
  const NDArray y = run(mb, {{"x", x}}).at(0);
  REQUIRE(y.dtype() == t);
  std::vector<double> xv, got, want;
  if (t == Float(64)) {
    xv = x.to_vector<double>();
    got = y.to_vector<double>();
  } else {
    for (float v : x.to_vector<float>()) xv.push_back(v);
    for (float v : y.to_vector<float>()) got.push_back(v);
  }
  for (double v : xv) want.push_back(ref(v));
  std::string why;
  const bool ok = onnx_test::allclose(got, want, t == Float(64) ? 1e-12 : 2e-6, t == Float(64) ? 1e-14 : 1e-7, &why);
  INFO(why);
  CHECK(ok);
}

}  // namespace

TEST_CASE("converters: Sin ... Atanh match the C library", "[onnx][converters][math]") {
  const struct {
    const char *op;
    double (*ref)(double);
    double lo, hi;
  } cases[] = {
      {"Sin", [](double x) { return std::sin(x); }, -6, 6},
      {"Cos", [](double x) { return std::cos(x); }, -6, 6},
      {"Tan", [](double x) { return std::tan(x); }, -1.5, 1.5},
      {"Asin", [](double x) { return std::asin(x); }, -1, 1},
      {"Acos", [](double x) { return std::acos(x); }, -1, 1},
      {"Atan", [](double x) { return std::atan(x); }, -20, 20},
      {"Sinh", [](double x) { return std::sinh(x); }, -5, 5},
      {"Cosh", [](double x) { return std::cosh(x); }, -5, 5},
      {"Asinh", [](double x) { return std::asinh(x); }, -50, 50},
      {"Acosh", [](double x) { return std::acosh(x); }, 1, 50},
      {"Atanh", [](double x) { return std::atanh(x); }, -0.999, 0.999},
  };
  for (const auto &c : cases) {
    check_unary(c.op, c.ref, c.lo, c.hi);
    check_unary(c.op, c.ref, c.lo, c.hi, Float(64));
  }
}

TEST_CASE("converters: trigonometric functions outside their domain give NaN", "[onnx][converters][math]") {
  ModelBuilder mb(13);
  mb.input("x", dims({4}));
  mb.node("Asin", {"x"}, {"a"});
  mb.node("Acosh", {"x"}, {"b"});
  mb.node("Atanh", {"x"}, {"c"});
  for (const char *o : {"a", "b", "c"}) mb.output(o);
  const graph::Outputs out = run(mb, {{"x", NDArray::from_vector<float>({-2.0f, 0.5f, 1.0f, 3.0f}, {4})}});
  const std::vector<float> a = out.at(0).to_vector<float>(), b = out.at(1).to_vector<float>(),
                           c = out.at(2).to_vector<float>();
  CHECK((std::isnan(a[0]) && std::isnan(a[3]) && !std::isnan(a[1])));
  CHECK((std::isnan(b[0]) && std::isnan(b[1]) && b[2] == 0.0f));
  CHECK((std::isnan(c[0]) && std::isnan(c[3]) && std::isinf(c[2])));
}

TEST_CASE("converters: Mod with fmod = 1 is C's fmod, exact at any quotient", "[onnx][converters][math]") {
  ModelBuilder mb(13);
  mb.input("a", dims({64}));
  mb.input("b", dims({64}));
  attr(mb.node("Mod", {"a", "b"}, {"y"}), "fmod", int64_t{1});
  mb.output("y");
  // Random magnitudes up to 2^30 over divisors from 1e-3 (quotients up to 10^12, where
  // a - b * trunc(a / b) loses every digit), both signs, and the edge cases: an infinite
  // divisor leaves the dividend, a zero divisor or an infinite dividend gives NaN.
  std::vector<float> a = NDArray::random({64}, Float(32), 3, -1.0, 1.0).to_vector<float>();
  std::vector<float> b = NDArray::random({64}, Float(32), 4, 0.001, 3.0).to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = std::ldexp(a[i], int(i % 31));
    if (i % 3 == 0) b[i] = -b[i];
  }
  const float inf = std::numeric_limits<float>::infinity();
  a[0] = 5.5f, b[0] = inf;
  a[1] = -5.5f, b[1] = -inf;
  a[2] = inf, b[2] = 2.0f;
  a[3] = 1.0f, b[3] = 0.0f;
  a[4] = -0.0f, b[4] = 3.0f;
  const std::vector<float> y =
      run(mb, {{"a", NDArray::from_vector<float>(a, {64})}, {"b", NDArray::from_vector<float>(b, {64})}})
          .at(0)
          .to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("fmod(" << a[i] << ", " << b[i] << ") = " << y[i]);
    const float want = std::fmod(a[i], b[i]);
    if (std::isnan(want)) CHECK(std::isnan(y[i]));
    else CHECK((y[i] == want && std::signbit(y[i]) == std::signbit(want)));
  }
}

TEST_CASE("converters: trigonometric functions refuse integer inputs", "[onnx][converters][math][error]") {
  ModelBuilder mb(13);
  mb.input("x", dims({4}), ::onnx::TensorProto::INT32);
  mb.node("Sin", {"x"}, {"y"}, "sine");
  mb.output("y", {}, ::onnx::TensorProto::INT32);
  CHECK_THROWS_AS(tonnx::import_bytes(mb.bytes()), tonnx::UnsupportedError);
}

TEST_CASE("converters: float16 inputs and Cast to and from float16", "[onnx][converters][math]") {
  // x is float16 in the model: the graph takes it in float32; Cast to float16 rounds to
  // float16's precision (to nearest, ties to even) and range; Cast back is exact.
  ModelBuilder mb(13);
  mb.input("x", dims({64}), ::onnx::TensorProto::FLOAT16);
  mb.input("f", dims({64}));
  attr(mb.node("Cast", {"x"}, {"x32"}), "to", int64_t{::onnx::TensorProto::FLOAT});
  attr(mb.node("Cast", {"f"}, {"h"}), "to", int64_t{::onnx::TensorProto::FLOAT16});
  attr(mb.node("Cast", {"h"}, {"d"}), "to", int64_t{::onnx::TensorProto::DOUBLE});
  mb.node("Max", {"x", "h"}, {"m"});
  mb.output("x32");
  mb.output("d", {}, ::onnx::TensorProto::DOUBLE);
  mb.output("m", {}, ::onnx::TensorProto::FLOAT16);
  std::vector<float> xv, fv = NDArray::random({64}, Float(32), 3, -3, 3).to_vector<float>();
  for (int i = 0; i < 64; ++i) xv.push_back(float(i - 32) / 8);  // exact in float16
  // Ties, subnormals, the largest float16 and beyond.
  const std::vector<float> edges = {1 + 1.0f / 2048, 1 + 3.0f / 2048, 3e-7f, -1e-8f, 65504, 65519, 65520, -1e6f};
  std::copy(edges.begin(), edges.end(), fv.begin());
  const graph::Outputs out =
      run(mb, {{"x", NDArray::from_vector<float>(xv, {64})}, {"f", NDArray::from_vector<float>(fv, {64})}});
  CHECK(out.at(0).to_vector<float>() == xv);
  const std::vector<double> d = out.at(1).to_vector<double>();
  const std::vector<float> m = out.at(2).to_vector<float>();
  for (size_t i = 0; i < 64; ++i) {
    const float want = float(static_cast<_Float16>(fv[i]));
    INFO("element " << i << ": " << fv[i]);
    CHECK(d[i] == double(want));
    CHECK(m[i] == std::max(xv[i], want));
  }
}

TEST_CASE("converters: CastLike to a float16 value rounds to float16", "[onnx][converters][math]") {
  // `like` is float16 in the model; f is computed at run time, k known at import: both are
  // rounded to float16 (to nearest, ties to even, past the largest to infinity).
  ModelBuilder mb(15);
  mb.input("f", dims({8}));
  mb.input("like", dims({1}), ::onnx::TensorProto::FLOAT16);
  const std::vector<float> edges = {1 + 1.0f / 2048, 1 + 3.0f / 2048, 3e-7f, -1e-8f, 65504, 65519, 65520, 0.1f};
  mb.initializer("k", NDArray::from_vector<float>(edges, {8}));
  mb.node("CastLike", {"f", "like"}, {"h"});
  mb.node("CastLike", {"k", "like"}, {"hk"});
  mb.node("Add", {"h", "hk"}, {"y"});
  mb.output("h", {}, ::onnx::TensorProto::FLOAT16);
  mb.output("y", {}, ::onnx::TensorProto::FLOAT16);
  const std::vector<float> fv = NDArray::random({8}, Float(32), 9, -3, 3).to_vector<float>();
  const graph::Outputs out = run(
      mb, {{"f", NDArray::from_vector<float>(fv, {8})}, {"like", NDArray::from_vector<float>({0}, {1})}});
  const std::vector<float> h = out.at(0).to_vector<float>(), y = out.at(1).to_vector<float>();
  for (size_t i = 0; i < 8; ++i) {
    const float hf = float(static_cast<_Float16>(fv[i])), hk = float(static_cast<_Float16>(edges[i]));
    INFO("element " << i << ": " << fv[i] << " and " << edges[i]);
    CHECK(h[i] == hf);
    CHECK(y[i] == hf + hk);
  }
}

TEST_CASE("converters: unsigned inputs and BitShift", "[onnx][converters][math]") {
  for (const Type t : {UInt(8), UInt(16), UInt(32), UInt(64)}) {
    INFO(t);
    ModelBuilder mb(11);
    mb.input("x", dims({2, 8}), onnx_test::onnx_type(t));
    mb.input("n", dims({8}), onnx_test::onnx_type(t));
    attr(mb.node("BitShift", {"x", "n"}, {"l"}), "direction", std::string("LEFT"));
    attr(mb.node("BitShift", {"x", "n"}, {"r"}), "direction", std::string("RIGHT"));
    mb.node("Max", {"l", "r"}, {"m"});
    for (const char *o : {"l", "r", "m"}) mb.output(o, {}, onnx_test::onnx_type(t));
    const int bits = t.bits();
    const NDArray x = NDArray::random({2, 8}, t, 4, 0, 250);
    // Shifts by 0, 1, ..., and by the width and more (every bit shifted out).
    const std::vector<int64_t> nv = {0, 1, 3, 7, bits - 1, bits, bits + 1, 2};
    const NDArray n = unsigned_array(nv, {8}, t);
    const graph::Outputs out = run(mb, {{"x", x}, {"n", n}});
    const std::vector<int64_t> xs = unsigned_values(x);
    const std::vector<int64_t> l = unsigned_values(out.at(0)), r = unsigned_values(out.at(1)),
                               m = unsigned_values(out.at(2));
    REQUIRE(out.at(0).dtype() == t);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    for (size_t i = 0; i < 16; ++i) {
      const uint64_t v = uint64_t(xs[i]), s = uint64_t(nv[i % 8]);
      const uint64_t wl = s >= uint64_t(bits) ? 0 : (v << s) & mask, wr = s >= uint64_t(bits) ? 0 : v >> s;
      INFO("element " << i << ": " << v << " shifted by " << s);
      CHECK(uint64_t(l[i]) == wl);
      CHECK(uint64_t(r[i]) == wr);
      CHECK(uint64_t(m[i]) == std::max(wl, wr));
    }
  }
  ModelBuilder mb(11);
  mb.input("x", dims({4}), ::onnx::TensorProto::UINT8);
  attr(mb.node("BitShift", {"x", "x"}, {"y"}, "shift"), "direction", std::string("UP"));
  mb.output("y", {}, ::onnx::TensorProto::UINT8);
  CHECK_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("shift") && Contains("LEFT or RIGHT"));
}

TEST_CASE("converters: Div of signed integers truncates toward zero, folded at import as at run time",
          "[onnx][converters][math]") {
  for (const auto &[t, folded] : {std::pair{Int(8), false}, {Int(16), false}, {Int(32), false}, {Int(64), false},
                                  {Int(8), true}, {Int(64), true}}) {
    INFO(t << (folded ? ", initializers folded at import" : ", inputs computed at run time"));
    // Every sign combination, exact and inexact quotients; then the type's lowest value
    // over -1, which wraps to itself, and divisors of 0, which give 0 (as the graph's divide).
    std::mt19937 rng(uint32_t(t.bits()));
    std::vector<int64_t> av, bv, want;
    for (int i = 0; i < 60; ++i) {
      av.push_back(int64_t(rng() % 200) - 100);
      int64_t d = int64_t(rng() % 19) - 9;
      bv.push_back(d == 0 ? 7 : d);
      want.push_back(av.back() / bv.back());
    }
    const int64_t lowest = t.bits() == 64 ? INT64_MIN : -(int64_t{1} << (t.bits() - 1));
    for (auto [a, b, q] : {std::tuple{lowest, int64_t{-1}, lowest}, {lowest, int64_t{0}, int64_t{0}},
                           {int64_t{5}, int64_t{0}, int64_t{0}}, {int64_t{-5}, int64_t{0}, int64_t{0}}}) {
      av.push_back(a);
      bv.push_back(b);
      want.push_back(q);
    }
    const auto array = [&](const std::vector<int64_t> &v) {
      NDArray x = NDArray::empty({64}, t);
      for (size_t i = 0; i < v.size(); ++i)
        std::memcpy(static_cast<char *>(x.data()) + i * size_t(t.bytes()), &v[i], size_t(t.bytes()));  // little-endian
      return x;
    };
    ModelBuilder mb(13);
    if (folded) {
      mb.initializer("a", array(av));
      mb.initializer("b", array(bv));
    } else {
      mb.input("a", dims({64}), onnx_test::onnx_type(t));
      mb.input("b", dims({64}), onnx_test::onnx_type(t));
    }
    mb.node("Div", {"a", "b"}, {"q"});
    mb.output("q", {}, onnx_test::onnx_type(t));
    const NDArray q = (folded ? run(mb, {}) : run(mb, {{"a", array(av)}, {"b", array(bv)}})).at(0);
    REQUIRE(q.dtype() == t);
    for (size_t i = 0; i < 64; ++i) {
      int64_t got = 0;
      std::memcpy(&got, static_cast<const char *>(q.data()) + i * size_t(t.bytes()), size_t(t.bytes()));
      if (t.bits() < 64) got = (got << (64 - t.bits())) >> (64 - t.bits());  // sign-extend
      INFO(av[i] << " / " << bv[i]);
      CHECK(got == want[i]);
    }
  }
}

TEST_CASE("converters: uint64 values from 2^63 up fold at import as they compute at run time", "[onnx][converters][math]") {
  // The last divisor is 0: the quotient is 0 both ways.
  const std::vector<uint64_t> av = {~uint64_t{0}, uint64_t{1} << 63, 7, 12345678901234567890ull, 9},
                              bv = {2, 3, (uint64_t{1} << 63) + 1, 10, 0};
  const auto array = [](const std::vector<uint64_t> &v) {
    return unsigned_array(std::vector<int64_t>(v.begin(), v.end()), {int64_t(v.size())}, UInt(64));
  };
  const NDArray a = array(av), b = array(bv);
  const std::vector<const char *> ops = {"Div", "Max", "Min", "Less", "Greater"};
  for (const bool folded : {true, false}) {
    INFO((folded ? "initializers, folded at import" : "inputs, computed at run time"));
    ModelBuilder mb(13);
    if (folded) {
      mb.initializer("a", a);
      mb.initializer("b", b);
    } else {
      mb.input("a", dims({5}), ::onnx::TensorProto::UINT64);
      mb.input("b", dims({5}), ::onnx::TensorProto::UINT64);
    }
    for (const char *op : ops) {
      mb.node(op, {"a", "b"}, {std::string("y") + op});
      const bool compare = std::string(op) == "Less" || std::string(op) == "Greater";
      mb.output(std::string("y") + op, {}, compare ? ::onnx::TensorProto::BOOL : ::onnx::TensorProto::UINT64);
    }
    const graph::Outputs out = folded ? run(mb, {}) : run(mb, {{"a", a}, {"b", b}});
    const std::vector<int64_t> div = unsigned_values(out.at(0)), mx = unsigned_values(out.at(1)),
                               mn = unsigned_values(out.at(2)), lt = unsigned_values(out.at(3)),
                               gt = unsigned_values(out.at(4));
    for (size_t i = 0; i < av.size(); ++i) {
      INFO(av[i] << " and " << bv[i]);
      CHECK(uint64_t(div[i]) == (bv[i] ? av[i] / bv[i] : 0));
      CHECK(uint64_t(mx[i]) == std::max(av[i], bv[i]));
      CHECK(uint64_t(mn[i]) == std::min(av[i], bv[i]));
      CHECK(lt[i] == int64_t(av[i] < bv[i]));
      CHECK(gt[i] == int64_t(av[i] > bv[i]));
    }
  }
}

TEST_CASE("converters: Hann, Hamming and Blackman windows of a known size", "[onnx][converters][math]") {
  const struct {
    const char *op;
    double a0, a1, a2;
  } windows[] = {
      {"HannWindow", 0.5, 0.5, 0}, {"HammingWindow", 25.0 / 46, 21.0 / 46, 0}, {"BlackmanWindow", 0.42, 0.5, 0.08}};
  for (const auto &w : windows)
    for (int64_t periodic : {0, 1}) {
      INFO(w.op << " periodic " << periodic);
      ModelBuilder mb(17);
      mb.initializer("size", NDArray::from_vector<int64_t>({9}, {}));
      mb.input("x", dims({9}));
      auto &node = mb.node(w.op, {"size"}, {"w"});
      attr(node, "periodic", periodic);
      mb.node("Mul", {"x", "w"}, {"y"});
      mb.output("y");
      const NDArray x = NDArray::random({9}, Float(32), 5, 1, 2);
      const std::vector<float> xv = x.to_vector<float>();
      std::vector<double> want;
      const double period = periodic ? 9 : 8;
      for (int k = 0; k < 9; ++k) {
        const double t = 2 * M_PI * k / period;
        want.push_back(xv[size_t(k)] * (w.a0 - w.a1 * std::cos(t) + w.a2 * std::cos(2 * t)));
      }
      check_close(run(mb, {{"x", x}}).at(0), want, 1e-6, 1e-7);
    }
  // A size computed at run time is refused.
  ModelBuilder mb(17);
  mb.input("size", dims({}), ::onnx::TensorProto::INT64);
  mb.node("HannWindow", {"size"}, {"w"});
  mb.output("w");
  CHECK_THROWS_AS(tonnx::import_bytes(mb.bytes()), tonnx::UnsupportedError);
}

TEST_CASE("converters: Det of 1x1, 2x2 and 3x3 matrices", "[onnx][converters][math]") {
  for (int64_t m : {1, 2, 3}) {
    INFO(m << "x" << m);
    ModelBuilder mb(11);
    mb.input("x", dims({2, 3, m, m}));
    mb.node("Det", {"x"}, {"y"});
    mb.output("y");
    const NDArray x = NDArray::random({2, 3, m, m}, Float(32), 6, -2, 2);
    const std::vector<float> xv = x.to_vector<float>();
    std::vector<double> want;
    for (int64_t b = 0; b < 6; ++b) {
      // Gaussian elimination with partial pivoting, in double.
      std::vector<double> a(xv.begin() + b * m * m, xv.begin() + (b + 1) * m * m);
      double det = 1;
      for (int64_t k = 0; k < m; ++k) {
        int64_t p = k;
        for (int64_t i = k + 1; i < m; ++i)
          if (std::fabs(a[size_t(i * m + k)]) > std::fabs(a[size_t(p * m + k)])) p = i;
        if (p != k) {
          for (int64_t j = 0; j < m; ++j) std::swap(a[size_t(k * m + j)], a[size_t(p * m + j)]);
          det = -det;
        }
        det *= a[size_t(k * m + k)];
        for (int64_t i = k + 1; i < m; ++i) {
          const double f = a[size_t(i * m + k)] / a[size_t(k * m + k)];
          for (int64_t j = k; j < m; ++j) a[size_t(i * m + j)] -= f * a[size_t(k * m + j)];
        }
      }
      want.push_back(det);
    }
    const NDArray y = run(mb, {{"x", x}}).at(0);
    CHECK(y.shape() == std::vector<int64_t>{2, 3});
    check_close(y, want, 1e-5, 1e-6);
  }
  ModelBuilder mb(11);
  mb.input("x", dims({2, 3}));
  mb.node("Det", {"x"}, {"y"}, "det");
  mb.output("y");
  CHECK_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("det") && Contains("square"));
}

namespace {

// An array's elements as doubles (integers and float64 exactly, below 2^53).
std::vector<double> as_doubles(const NDArray &a) {
  const Type t = a.dtype();
  if (t == Float(64)) return a.to_vector<double>();
  if (t == Float(32)) {
    const std::vector<float> v = a.to_vector<float>();
    return std::vector<double>(v.begin(), v.end());
  }
  std::vector<double> out;
  for (int64_t i = 0; i < a.numel(); ++i) {
    int64_t x = 0;  // little-endian, sign- or zero-extended
    std::memcpy(&x, static_cast<const char *>(a.data()) + i * t.bytes(), size_t(t.bytes()));
    if (t.is_int() && t.bits() < 64) x = (x << (64 - t.bits())) >> (64 - t.bits());
    out.push_back(t == UInt(64) ? double(uint64_t(x)) : double(x));
  }
  return out;
}

}  // namespace

TEST_CASE("converters: MatMul and Gemm of float64 and integers compute in their type", "[onnx][converters][math]") {
  // Shapes of NumPy's matmul: plain, batched with broadcasting, 1-D on either side.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{5, 7}, {7, 3}}, {{2, 1, 4, 6}, {3, 6, 5}}, {{6}, {6, 4}}, {{3, 6}, {6}}, {{2, 3, 6}, {6, 5}}};
  for (const Type t : {Float(64), Int(32), Int(64), UInt(32), UInt(64)}) {
    for (size_t s = 0; s <= shapes.size(); ++s) {
      // Last, the first shapes again with B a known weight (which the graph packs).
      const bool known_b = s == shapes.size();
      const auto &[as, bs] = shapes[known_b ? 0 : s];
      INFO(t << " " << shape_str(as) << " x " << shape_str(bs) << (known_b ? ", B an initializer" : ""));
      // Small integers: every product and sum is exact in the type and in double.
      const bool integer = !t.is_float();
      const NDArray a = NDArray::random(as, t, 3, integer ? 0 : -1, integer ? 50 : 1);
      const NDArray b = NDArray::random(bs, t, 4, integer ? 0 : -1, integer ? 50 : 1);
      ModelBuilder mb(13);
      mb.input("a", dims(as), onnx_test::onnx_type(t));
      if (known_b) mb.initializer("b", b);
      else mb.input("b", dims(bs), onnx_test::onnx_type(t));
      mb.node("MatMul", {"a", "b"}, {"y"});
      mb.output("y", {}, onnx_test::onnx_type(t));
      const NDArray y = known_b ? run(mb, {{"a", a}}).at(0) : run(mb, {{"a", a}, {"b", b}}).at(0);
      REQUIRE(y.dtype() == t);
      // The reference: rows of A [.., M, K] by columns of B [.., K, N], batches broadcast.
      const std::vector<int64_t> a2 = as.size() == 1 ? std::vector<int64_t>{1, as[0]} : as;
      const std::vector<int64_t> b2 = bs.size() == 1 ? std::vector<int64_t>{bs[0], 1} : bs;
      const int64_t m = a2[a2.size() - 2], k = a2.back(), n = b2.back();
      const size_t nd = std::max(a2.size(), b2.size());
      std::vector<int64_t> batch(nd - 2, 1), a_batch(nd - 2, 1), b_batch(nd - 2, 1);
      for (size_t i = 0; i + 2 < a2.size(); ++i) a_batch[nd - a2.size() + i] = a2[i];
      for (size_t i = 0; i + 2 < b2.size(); ++i) b_batch[nd - b2.size() + i] = b2[i];
      int64_t batches = 1;
      for (size_t i = 0; i < batch.size(); ++i) batches *= batch[i] = std::max(a_batch[i], b_batch[i]);
      const std::vector<double> av = as_doubles(a), bv = as_doubles(b), got = as_doubles(y);
      REQUIRE(got.size() == size_t(batches * m * n));
      for (int64_t p = 0; p < batches; ++p) {
        int64_t ao = 0, bo = 0, rest = p;
        for (size_t i = batch.size(); i-- > 0;) {
          const int64_t idx = rest % batch[i];
          rest /= batch[i];
          int64_t a_stride = m * k, b_stride = k * n;
          for (size_t j = i + 1; j < batch.size(); ++j) a_stride *= a_batch[j], b_stride *= b_batch[j];
          ao += (a_batch[i] == 1 ? 0 : idx) * a_stride;
          bo += (b_batch[i] == 1 ? 0 : idx) * b_stride;
        }
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double want = 0;
            for (int64_t q = 0; q < k; ++q) want += av[size_t(ao + i * k + q)] * bv[size_t(bo + q * n + j)];
            const double g = got[size_t((p * m + i) * n + j)];
            if (integer) CHECK(g == want);
            else CHECK(std::abs(g - want) <= 1e-12 * (1 + std::abs(want)));
          }
      }
    }
    // Gemm: alpha A' B' + beta C, A transposed, C a row broadcast.
    INFO(t << " Gemm");
    ModelBuilder mb(13);
    mb.input("a", dims({4, 3}), onnx_test::onnx_type(t));
    mb.input("b", dims({4, 5}), onnx_test::onnx_type(t));
    mb.input("c", dims({5}), onnx_test::onnx_type(t));
    auto &node = mb.node("Gemm", {"a", "b", "c"}, {"y"});
    attr(node, "transA", int64_t{1});
    attr(node, "alpha", 2.0f);
    attr(node, "beta", 3.0f);
    mb.output("y", {}, onnx_test::onnx_type(t));
    const bool integer = !t.is_float();
    const NDArray a = NDArray::random({4, 3}, t, 5, integer ? 0 : -1, integer ? 50 : 1);
    const NDArray b = NDArray::random({4, 5}, t, 6, integer ? 0 : -1, integer ? 50 : 1);
    const NDArray c = NDArray::random({5}, t, 7, integer ? 0 : -1, integer ? 50 : 1);
    const NDArray y = run(mb, {{"a", a}, {"b", b}, {"c", c}}).at(0);
    REQUIRE(y.dtype() == t);
    const std::vector<double> av = as_doubles(a), bv = as_doubles(b), cv = as_doubles(c), got = as_doubles(y);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        double s = 0;
        for (int64_t q = 0; q < 4; ++q) s += av[size_t(q * 3 + i)] * bv[size_t(q * 5 + j)];
        const double want = 2 * s + 3 * cv[size_t(j)], g = got[size_t(i * 5 + j)];
        if (integer) CHECK(g == want);
        else CHECK(std::abs(g - want) <= 1e-12 * (1 + std::abs(want)));
      }
    if (!integer) continue;
    // Integers are scaled in their type: a fraction would be cut, and a value the type
    // does not hold has no conversion, so they are refused.
    for (const float bad : {0.5f, std::numeric_limits<float>::infinity(), 1e30f, std::nanf("")}) {
      for (auto &at : *node.mutable_attribute())
        if (at.name() == "alpha") at.set_f(bad);
      CHECK_THROWS_WITH(tonnx::import_bytes(mb.bytes()), Contains("alpha = ") && Contains("whole numbers that"));
    }
  }
}

TEST_CASE("converters: Gemm scales the product by alpha, not B", "[onnx][converters][math]") {
  // alpha B would overflow float32 (1e30 * 1e20) where alpha (A B) = 1e30 does not, with B
  // a known weight or an input.
  for (const bool known : {true, false}) {
    INFO((known ? "B an initializer" : "B an input"));
    ModelBuilder mb(13);
    mb.input("a", dims({1, 2}));
    const NDArray b = NDArray::from_vector<float>({1e20f, 0.0f}, {2, 1});
    if (known) mb.initializer("b", b);
    else mb.input("b", dims({2, 1}));
    attr(mb.node("Gemm", {"a", "b"}, {"y"}), "alpha", 1e30f);
    mb.output("y");
    const NDArray a = NDArray::from_vector<float>({1e-20f, 1.0f}, {1, 2});
    const NDArray y = (known ? run(mb, {{"a", a}}) : run(mb, {{"a", a}, {"b", b}})).at(0);
    CHECK(y.to_vector<float>().at(0) == Approx(1e30f).epsilon(1e-6));
  }
}
