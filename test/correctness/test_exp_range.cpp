// float32 exp and sigmoid over their whole range, in vectors and lane by lane, against
// the C library: results near overflow, subnormal results, infinities and NaN.
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

using namespace tensorir;

namespace {

// The inputs: a sweep of [-110, 100] and the edges of float32's exp.
std::vector<float> inputs() {
  std::vector<float> x;
  for (int i = 0; i <= 4200; ++i) x.push_back(-110.0f + 0.05f * float(i) + 1e-3f * float(i % 7));
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, 1e-8f, -1e-8f, 88.72f, 88.73f, 89.0f, -87.33f, -103.9f, -104.0f, -149.0f, inf, -inf})
    x.push_back(v);
  while (x.size() % 16) x.push_back(0.5f);
  return x;
}

// f(x) for every input, the loop vectorized in 16 lanes or not.
std::vector<float> run(Expr (*f)(Expr), const std::vector<float> &x, bool vector) {
  const int n = int(x.size());
  Tensor X = placeholder({n}, Float(32), "X");
  Tensor O = compute({n}, [&](Var i) { return f(X(i)); }, "O");
  Schedule s = create_schedule({O});
  if (vector) s[O].vectorize(s[O].split(O.axis(0), 16).second);
  Module m = build(s, {X, O}, "llvm", "f");
  NDArray in = NDArray::from_vector(x, {n}), out = NDArray::empty({n}, Float(32), Device::cpu());
  m("f").call({in, out});
  return out.to_vector<float>();
}

// Within 3 ulp of the C library's value (relative 4e-7), or 2e-45 of it for subnormal
// values; infinities and zeros exactly (or the smallest subnormals).
void check_ulps(const std::vector<float> &x, const std::vector<float> &got, double (*ref)(double)) {
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = float(ref(double(x[i])));
    INFO("x = " << x[i] << ": got " << got[i] << ", want " << want);
    if (std::isinf(want) || want == 0) {
      CHECK((got[i] == want || std::fabs(got[i]) < 2e-45));
    } else {
      CHECK(std::fabs(got[i] - want) <= std::max(4e-7 * std::fabs(want), 2e-45));
    }
  }
}

}  // namespace

TEST_CASE("float32 exp and sigmoid hold a few ulp over their whole range", "[correctness][intrinsic]") {
  const std::vector<float> x = inputs();
  for (bool vector : {false, true}) {
    INFO((vector ? "16 lanes" : "scalar"));
    check_ulps(x, run([](Expr v) { return exp(v); }, x, vector), [](double v) { return std::exp(v); });
    check_ulps(x, run([](Expr v) { return sigmoid(v); }, x, vector),
               [](double v) { return double(1.0f / (1.0f + std::exp(float(-v)))); });
    const float nan = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(run([](Expr v) { return exp(v); }, std::vector<float>(16, nan), vector)[3]));
    CHECK(std::isnan(run([](Expr v) { return sigmoid(v); }, std::vector<float>(16, nan), vector)[3]));
  }
}
