// Einsum against a loop over every assignment of its labels; RNN, GRU and LSTM against
// their cells written out step by step; the quantized operators against their formulas
// (round half to even, saturation) and integer loops; on random data, with the cases
// they refuse.
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

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

// ---- Einsum ----

// An explicit equation of letters, summed over every assignment of its labels.
std::vector<double> einsum_ref(const std::string &eq, const std::vector<NDArray> &xs) {
  const size_t arrow = eq.find("->");
  std::vector<std::string> terms;
  for (size_t from = 0;;) {
    const size_t comma = eq.find(',', from);
    terms.push_back(eq.substr(from, std::min(comma, arrow) - from));
    if (comma == std::string::npos || comma > arrow) break;
    from = comma + 1;
  }
  const std::string out = eq.substr(arrow + 2);
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t d = 0; d < terms[i].size(); ++d) size[terms[i][d]] = xs[i].shape()[d];
  std::vector<char> labels;
  for (auto [l, n] : size) labels.push_back(l);
  int64_t out_n = 1;
  for (char l : out) out_n *= size[l];
  std::vector<double> y(size_t(out_n), 0.0);
  std::vector<std::vector<float>> v;
  for (const NDArray &x : xs) v.push_back(x.to_vector<float>());
  std::map<char, int64_t> at;
  for (char l : labels) at[l] = 0;
  auto flat = [&](const std::string &term, const std::vector<int64_t> &shape) {
    int64_t f = 0;
    for (size_t d = 0; d < term.size(); ++d) f = f * shape[d] + at[term[d]];
    return f;
  };
  for (;;) {
    double p = 1;
    for (size_t i = 0; i < terms.size(); ++i) p *= v[i][size_t(flat(terms[i], xs[i].shape()))];
    std::vector<int64_t> oshape;
    for (char l : out) oshape.push_back(size[l]);
    y[size_t(flat(out, oshape))] += p;
    size_t k = labels.size();
    while (k > 0 && ++at[labels[k - 1]] == size[labels[k - 1]]) at[labels[--k]] = 0;
    if (k == 0) break;
  }
  return y;
}

NDArray run_einsum(const std::string &eq, const std::vector<NDArray> &xs) {
  ModelBuilder mb(12);
  std::vector<std::string> names;
  for (size_t i = 0; i < xs.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    mb.input(names.back(), dims(xs[i].shape()));
  }
  attr(mb.node("Einsum", names, {"y"}), "equation", eq);
  mb.output("y");
  std::map<std::string, NDArray> feed;
  for (size_t i = 0; i < xs.size(); ++i) feed[names[i]] = xs[i];
  return run(mb, feed).at(0);
}

std::vector<NDArray> randoms(const std::vector<std::vector<int64_t>> &shapes, uint64_t seed) {
  std::vector<NDArray> out;
  for (const auto &s : shapes) out.push_back(NDArray::random(s, Float(32), seed++, -1, 1));
  return out;
}

// ---- the recurrent cells ----

using Vec = std::vector<double>;
double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// W [rows, k] (row-major, from `off`) times x [k] for each row, from row r0 on.
Vec times(const std::vector<float> &w, size_t off, size_t r0, size_t rows, const Vec &x) {
  Vec y(rows, 0.0);
  for (size_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < x.size(); ++k) y[r] += w[off + (r0 + r) * x.size() + k] * x[k];
  return y;
}

// One direction's weights as ONNX lays them out: W [G*H, I], R [G*H, H], B [2*G*H], P [3*H].
struct Weights {
  std::vector<float> w, r, b, p;
  size_t wo = 0, ro = 0, bo = 0, po = 0;  // the direction's offsets
  size_t hidden;
};

// The gate pre-activations of gate g: W_g x + Wb_g (+ R_g h + Rb_g when with_r).
Vec pre(const Weights &ws, size_t gates, size_t g, const Vec &x, const Vec &h, bool with_r) {
  const size_t hs = ws.hidden;
  Vec y = times(ws.w, ws.wo, g * hs, hs, x);
  if (with_r) {
    const Vec rh = times(ws.r, ws.ro, g * hs, hs, h);
    for (size_t j = 0; j < hs; ++j) y[j] += rh[j];
  }
  if (!ws.b.empty())
    for (size_t j = 0; j < hs; ++j)
      y[j] += ws.b[ws.bo + g * hs + j] + (with_r ? ws.b[ws.bo + (gates + g) * hs + j] : 0);
  return y;
}

}  // namespace

TEST_CASE("converters: Einsum against a loop over its labels", "[onnx][converters][einsum]") {
  struct Case {
    std::string eq, ref;  // ref: the equation the loop computes ("" = eq)
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<Case> cases = {
      {"bij,bjk->bik", "", {{2, 3, 4}, {2, 4, 5}}},
      {"bhid,bhjd->bhij", "", {{2, 2, 3, 4}, {2, 2, 5, 4}}},
      {"ij->ji", "", {{3, 4}}},
      {"i,i->", "", {{5}, {5}}},
      {"ii->i", "", {{4, 4}}},
      {"bii->b", "", {{2, 3, 3}}},
      {"ijk->", "", {{2, 3, 4}}},
      {"i,j->ij", "", {{3}, {4}}},
      {"ab,ab->ba", "", {{3, 4}, {3, 4}}},
      {"ij,jk,kl->il", "", {{2, 3}, {3, 4}, {4, 2}}},
      {"ij,k->k", "", {{2, 3}, {4}}},
      {"ij,kj", "ij,kj->ik", {{2, 3}, {4, 3}}},
      {"ba", "ba->ab", {{3, 2}}},
      {"...ij,...jk->...ik", "zij,zjk->zik", {{2, 3, 4}, {2, 4, 5}}},
      {"i j k , i k l -> j l", "ijk,ikl->jl", {{2, 3, 4}, {2, 4, 3}}},
  };
  // Ellipsis dimensions of 1 broadcast: the reference gets the operand repeated.
  const std::vector<NDArray> xs = randoms({{2, 1, 3, 4}, {5, 4, 2}}, 7);
  // x0 [2, 1, 3, 4] as [2, 5, 3, 4]: element (p, r) is x0's (p, 0).
  std::vector<float> x0w;
  const std::vector<float> v0 = xs[0].to_vector<float>();
  for (int p = 0; p < 2; ++p)
    for (int r = 0; r < 5; ++r) x0w.insert(x0w.end(), v0.begin() + p * 12, v0.begin() + (p + 1) * 12);
  const std::vector<NDArray> wide_xs = {NDArray::from_vector(x0w, {2, 5, 3, 4}), xs[1]};
  check_close(run_einsum("...ij,...jk->...ik", xs), einsum_ref("pqij,qjk->pqik", wide_xs), 1e-4, 1e-5);
  uint64_t seed = 1;
  for (const Case &c : cases) {
    INFO("equation " << c.eq);
    const std::vector<NDArray> xs = randoms(c.shapes, seed += 10);
    check_close(run_einsum(c.eq, xs), einsum_ref(c.ref.empty() ? c.eq : c.ref, xs), 1e-4, 1e-5);
  }
}

TEST_CASE("converters: what Einsum refuses", "[onnx][converters][einsum]") {
  auto import = [](const std::string &eq, const std::vector<std::vector<int64_t>> &shapes) {
    ModelBuilder mb(12);
    std::vector<std::string> names;
    for (size_t i = 0; i < shapes.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      mb.input(names.back(), dims(shapes[i]));
    }
    attr(mb.node("Einsum", names, {"y"}), "equation", eq);
    mb.output("y");
    return tonnx::import_bytes(mb.bytes());
  };
  REQUIRE_THROWS_WITH(import("ij,jk->ik", {{2, 3}}), Contains("2 operands"));
  REQUIRE_THROWS_WITH(import("ij->iq", {{2, 3}}), Contains("output label 'q'"));
  REQUIRE_THROWS_WITH(import("ij,jk->ik", {{2, 3}, {4, 5}}), Contains("label 'j' has sizes 3 and 4"));
  REQUIRE_THROWS_WITH(import("i2->i", {{2, 3}}), Contains("not a letter"));
  REQUIRE_THROWS_WITH(import("...i,...i->...i", {{2, 3}, {3, 3}}), Contains("of 2 and 3 do not broadcast"));
}

TEST_CASE("converters: LSTM, bidirectional with peepholes and initial states, against its cell",
          "[onnx][converters][recurrent]") {
  const int64_t seq = 3, batch = 2, in = 4, hs = 3, dirs = 2;
  const NDArray x = NDArray::random({seq, batch, in}, Float(32), 1, -1, 1);
  const NDArray w = NDArray::random({dirs, 4 * hs, in}, Float(32), 2, -1, 1);
  const NDArray r = NDArray::random({dirs, 4 * hs, hs}, Float(32), 3, -1, 1);
  const NDArray b = NDArray::random({dirs, 8 * hs}, Float(32), 4, -1, 1);
  const NDArray h0 = NDArray::random({dirs, batch, hs}, Float(32), 5, -1, 1);
  const NDArray c0 = NDArray::random({dirs, batch, hs}, Float(32), 6, -1, 1);
  const NDArray p = NDArray::random({dirs, 3 * hs}, Float(32), 7, -1, 1);
  // clip bounds the gates' pre-activations (peepholes included), not the cell that h
  // reads through tanh (ONNX Runtime's reading of the spec): cells reach past 0.5 here.
  for (const double clip : {0.0, 0.5}) {
    INFO("clip " << clip);
    const auto clipped = [clip](double v) { return clip > 0 ? std::clamp(v, -clip, clip) : v; };
    ModelBuilder mb(13);
    for (auto [name, a] : std::vector<std::pair<std::string, NDArray>>{
             {"x", x}, {"w", w}, {"r", r}, {"b", b}, {"h0", h0}, {"c0", c0}, {"p", p}})
      mb.input(name, dims(a.shape()));
    auto &n = mb.node("LSTM", {"x", "w", "r", "b", "", "h0", "c0", "p"}, {"y", "yh", "yc"});
    attr(n, "direction", std::string("bidirectional"));
    attr(n, "hidden_size", hs);
    if (clip > 0) attr(n, "clip", float(clip));
    mb.output("y");
    mb.output("yh");
    mb.output("yc");
    const graph::Outputs got = run(mb, {{"x", x}, {"w", w}, {"r", r}, {"b", b}, {"h0", h0}, {"c0", c0}, {"p", p}});
    const std::vector<float> xv = x.to_vector<float>(), h0v = h0.to_vector<float>(), c0v = c0.to_vector<float>();
    std::vector<double> y(size_t(seq * dirs * batch * hs)), yh, yc;
    for (int64_t d = 0; d < dirs; ++d) {
      Weights ws{w.to_vector<float>(), r.to_vector<float>(),    b.to_vector<float>(),
                 p.to_vector<float>(), size_t(d * 4 * hs * in), size_t(d * 4 * hs * hs),
                 size_t(d * 8 * hs),   size_t(d * 3 * hs),      size_t(hs)};
      for (int64_t bi = 0; bi < batch; ++bi) {
        Vec h(h0v.begin() + (d * batch + bi) * hs, h0v.begin() + (d * batch + bi + 1) * hs);
        Vec cell(c0v.begin() + (d * batch + bi) * hs, c0v.begin() + (d * batch + bi + 1) * hs);
        for (int64_t k = 0; k < seq; ++k) {
          const int64_t t = d ? seq - 1 - k : k;
          const Vec xt(xv.begin() + (t * batch + bi) * in, xv.begin() + (t * batch + bi + 1) * in);
          const Vec i = pre(ws, 4, 0, xt, h, true), o = pre(ws, 4, 1, xt, h, true), f = pre(ws, 4, 2, xt, h, true),
                    g = pre(ws, 4, 3, xt, h, true);
          for (size_t j = 0; j < size_t(hs); ++j) {
            const double ig = sigmoid(clipped(i[j] + ws.p[ws.po + j] * cell[j]));
            const double fg = sigmoid(clipped(f[j] + ws.p[ws.po + 2 * size_t(hs) + j] * cell[j]));
            cell[j] = fg * cell[j] + ig * std::tanh(clipped(g[j]));
            const double og = sigmoid(clipped(o[j] + ws.p[ws.po + size_t(hs) + j] * cell[j]));
            h[j] = og * std::tanh(cell[j]);
            y[size_t(((t * dirs + d) * batch + bi) * hs) + j] = h[j];
          }
        }
        yh.insert(yh.end(), h.begin(), h.end());
        yc.insert(yc.end(), cell.begin(), cell.end());
      }
    }
    REQUIRE(got.at(0).shape() == std::vector<int64_t>{seq, dirs, batch, hs});
    check_close(got.at(0), y, 1e-4, 1e-5);
    check_close(got.at(1), yh, 1e-4, 1e-5);
    check_close(got.at(2), yc, 1e-4, 1e-5);
  }
}

TEST_CASE("converters: GRU with and without linear_before_reset, batch first, against its cell",
          "[onnx][converters][recurrent]") {
  const int64_t seq = 3, batch = 2, in = 4, hs = 3;
  const NDArray x = NDArray::random({batch, seq, in}, Float(32), 11, -1, 1);
  const NDArray w = NDArray::random({1, 3 * hs, in}, Float(32), 12, -1, 1);
  const NDArray r = NDArray::random({1, 3 * hs, hs}, Float(32), 13, -1, 1);
  const NDArray b = NDArray::random({1, 6 * hs}, Float(32), 14, -1, 1);
  const NDArray h0 = NDArray::random({batch, 1, hs}, Float(32), 15, -1, 1);
  for (int64_t lbr : {0, 1}) {
    INFO("linear_before_reset " << lbr);
    ModelBuilder mb(14);
    for (auto [name, a] :
         std::vector<std::pair<std::string, NDArray>>{{"x", x}, {"w", w}, {"r", r}, {"b", b}, {"h0", h0}})
      mb.input(name, dims(a.shape()));
    auto &n = mb.node("GRU", {"x", "w", "r", "b", "", "h0"}, {"y", "yh"});
    attr(n, "linear_before_reset", lbr);
    attr(n, "layout", int64_t{1});
    mb.output("y");
    mb.output("yh");
    const graph::Outputs got = run(mb, {{"x", x}, {"w", w}, {"r", r}, {"b", b}, {"h0", h0}});
    const std::vector<float> xv = x.to_vector<float>(), h0v = h0.to_vector<float>(), bv = b.to_vector<float>();
    Weights ws{w.to_vector<float>(), r.to_vector<float>(), bv, {}, 0, 0, 0, 0, size_t(hs)};
    std::vector<double> y(size_t(batch * seq * hs)), yh;
    for (int64_t bi = 0; bi < batch; ++bi) {
      Vec h(h0v.begin() + bi * hs, h0v.begin() + (bi + 1) * hs);
      for (int64_t t = 0; t < seq; ++t) {
        const Vec xt(xv.begin() + (bi * seq + t) * in, xv.begin() + (bi * seq + t + 1) * in);
        const Vec z = pre(ws, 3, 0, xt, h, true), rg = pre(ws, 3, 1, xt, h, true), xh = pre(ws, 3, 2, xt, h, false);
        Vec reset(static_cast<size_t>(hs));
        for (size_t j = 0; j < size_t(hs); ++j) reset[j] = sigmoid(rg[j]) * h[j];
        const Vec rr = times(ws.r, 0, 2 * size_t(hs), size_t(hs), lbr ? h : reset);  // Rh (h or r * h)
        Vec next(static_cast<size_t>(hs));
        for (size_t j = 0; j < size_t(hs); ++j) {
          const double rbh = bv[size_t(5 * hs) + j];
          const double hp = lbr ? xh[j] + sigmoid(rg[j]) * (rr[j] + rbh) : xh[j] + rr[j] + rbh;
          const double zg = sigmoid(z[j]);
          next[j] = (1 - zg) * std::tanh(hp) + zg * h[j];
          y[size_t((bi * seq + t) * hs) + j] = next[j];
        }
        h = next;
      }
      yh.insert(yh.end(), h.begin(), h.end());
    }
    REQUIRE(got.at(0).shape() == std::vector<int64_t>{batch, seq, 1, hs});
    check_close(got.at(0), y, 1e-4, 1e-5);
    check_close(got.at(1), yh, 1e-4, 1e-5);
  }
}

TEST_CASE("converters: bidirectional RNN with HardSigmoid, Tanh, a clip and sequence_lens",
          "[onnx][converters][recurrent]") {
  const int64_t seq = 4, batch = 3, in = 3, hs = 5, dirs = 2;
  const NDArray x = NDArray::random({seq, batch, in}, Float(32), 21, -2, 2);
  const NDArray w = NDArray::random({dirs, hs, in}, Float(32), 22, -1, 1);
  const NDArray r = NDArray::random({dirs, hs, hs}, Float(32), 23, -1, 1);
  // Lengths known at import, or computed at run time (a graph input).
  auto model = [&](const std::vector<int32_t> &lens, bool known) {
    ModelBuilder mb(13);
    mb.input("x", dims(x.shape()));
    mb.initializer("w", w);
    mb.initializer("r", r);
    if (known)
      mb.initializer("lens", NDArray::from_vector(lens, {batch}));
    else
      mb.input("lens", {batch}, ::onnx::TensorProto::INT32);
    auto &n = mb.node("RNN", {"x", "w", "r", "", "lens"}, {"y", "yh"});
    attr(n, "direction", std::string("bidirectional"));
    attr(n, "clip", 0.8f);
    auto *acts = n.add_attribute();
    acts->set_name("activations");
    acts->set_type(::onnx::AttributeProto::STRINGS);
    acts->add_strings("HardSigmoid");
    acts->add_strings("Tanh");
    auto *alphas = n.add_attribute();
    alphas->set_name("activation_alpha");
    alphas->set_type(::onnx::AttributeProto::FLOATS);
    alphas->add_floats(0.3f);
    mb.output("y");
    mb.output("yh");
    return mb;
  };
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>(), rv = r.to_vector<float>();
  for (const std::vector<int32_t> &lens : {std::vector<int32_t>{4, 4, 4}, std::vector<int32_t>{4, 2, 0}}) {
    std::vector<double> y(size_t(seq * dirs * batch * hs), 0.0), yh;
    for (int64_t d = 0; d < dirs; ++d) {
      Weights ws{wv, rv, {}, {}, size_t(d * hs * in), size_t(d * hs * hs), 0, 0, size_t(hs)};
      for (int64_t bi = 0; bi < batch; ++bi) {
        Vec h(size_t(hs), 0.0);
        const int64_t len = lens[size_t(bi)];
        for (int64_t k = 0; k < len; ++k) {
          const int64_t t = d ? len - 1 - k : k;
          const Vec xt(xv.begin() + (t * batch + bi) * in, xv.begin() + (t * batch + bi + 1) * in);
          const Vec v = pre(ws, 1, 0, xt, h, true);
          for (size_t j = 0; j < size_t(hs); ++j) {
            const double c = std::clamp(v[j], -0.8, 0.8);
            h[j] = d ? std::tanh(c) : std::clamp(0.3 * c + 0.5, 0.0, 1.0);
            y[size_t(((t * dirs + d) * batch + bi) * hs) + j] = h[j];
          }
        }
        yh.insert(yh.end(), h.begin(), h.end());
      }
    }
    for (bool known : {true, false}) {
      INFO("lengths " << lens[1] << ", " << (known ? "known" : "at run time"));
      std::map<std::string, NDArray> feed = {{"x", x}};
      if (!known) feed["lens"] = NDArray::from_vector(lens, {batch});
      const graph::Outputs got = run(model(lens, known), feed);
      check_close(got.at(0), y, 1e-4, 1e-5);
      check_close(got.at(1), yh, 1e-4, 1e-5);
    }
  }
  REQUIRE_THROWS_WITH(tonnx::import_bytes(model({5, 1, 1}, true).bytes()), Contains("beyond the sequence length 4"));
}

TEST_CASE("converters: what the recurrent converters refuse", "[onnx][converters][recurrent]") {
  auto import = [](const std::string &op, int64_t gates, int64_t w_rows,
                   const std::function<void(::onnx::NodeProto &)> &attrs) {
    ModelBuilder mb(13);
    mb.input("x", dims({2, 1, 3}));
    mb.initializer("w", NDArray::random({1, w_rows, 3}, Float(32), 1));
    mb.initializer("r", NDArray::random({1, gates * 4, 4}, Float(32), 2));
    attrs(mb.node(op, {"x", "w", "r"}, {"y"}));
    mb.output("y");
    return tonnx::import_bytes(mb.bytes());
  };
  auto none = [](::onnx::NodeProto &) {};
  REQUIRE_THROWS_WITH(import("GRU", 3, 8, none), Contains("do not fit X"));
  REQUIRE_THROWS_WITH(import("LSTM", 4, 16, [](auto &n) { attr(n, "input_forget", int64_t{1}); }),
                      Contains("input_forget"));
  REQUIRE_THROWS_WITH(import("RNN", 1, 4, [](auto &n) { attr(n, "direction", std::string("sideways")); }),
                      Contains("direction 'sideways'"));
  REQUIRE_THROWS_WITH(import("RNN", 1, 4, [](auto &n) { attr(n, "hidden_size", int64_t{5}); }),
                      Contains("hidden_size 5 differs"));
  REQUIRE_THROWS_AS(import("RNN", 1, 4,
                           [](auto &n) {
                             auto *a = n.add_attribute();
                             a->set_name("activations");
                             a->set_type(::onnx::AttributeProto::STRINGS);
                             a->add_strings("Swish");
                           }),
                    tonnx::UnsupportedError);
}

namespace {

// ---- quantization ----

template <typename T>
NDArray ints(const std::vector<int64_t> &shape, int lo, int hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  for (int64_t i = 0; i < n; ++i) v.push_back(T(dist(gen)));
  return NDArray::from_vector(v, shape);
}

// saturate(round half to even(v) + zp) in [lo, hi].
double quantize(float v, double zp, double lo, double hi) { return std::clamp(std::nearbyint(v) + zp, lo, hi); }

template <typename T>
std::vector<double> as_doubles(const NDArray &a) {
  const std::vector<T> v = a.to_vector<T>();
  return std::vector<double>(v.begin(), v.end());
}

}  // namespace

TEST_CASE("converters: QuantizeLinear per axis to int8 and back, halves to even", "[onnx][converters][quantize]") {
  // x = (k + 0.5) * scale for some elements: the ties that round to even.
  const std::vector<int64_t> shape = {2, 3, 4};
  const std::vector<float> scales = {0.5f, 0.25f, 2.0f};
  const std::vector<int8_t> zps = {0, -3, 5};
  std::vector<float> xv = NDArray::random(shape, Float(32), 31, -80, 80).to_vector<float>();
  for (size_t i = 0; i < xv.size(); i += 3) xv[i] = (float(int(i) % 9 - 4) + 0.5f) * scales[i / 4 % 3];
  xv[1] = 1000;  // saturates
  const NDArray x = NDArray::from_vector(xv, shape);
  ModelBuilder mb(13);
  mb.input("x", dims(shape));
  mb.input("s", {int64_t{3}});
  mb.input("zp", {int64_t{3}}, ::onnx::TensorProto::INT8);
  mb.node("QuantizeLinear", {"x", "s", "zp"}, {"q"});
  mb.node("DequantizeLinear", {"q", "s", "zp"}, {"y"});
  mb.output("q", dims(shape), ::onnx::TensorProto::INT8);
  mb.output("y", dims(shape));
  const graph::Outputs got =
      run(mb, {{"x", x}, {"s", NDArray::from_vector(scales, {3})}, {"zp", NDArray::from_vector(zps, {3})}});
  std::vector<double> q, y;
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t ch = i / 4 % 3;
    q.push_back(quantize(xv[i] / scales[ch], zps[ch], -128, 127));
    y.push_back((q.back() - zps[ch]) * scales[ch]);
  }
  CHECK(as_doubles<int8_t>(got.at(0)) == q);
  check_close(got.at(1), y);
  // A scale that fits no axis is malformed.
  ModelBuilder bad(13);
  bad.input("x", dims(shape));
  bad.initializer("s", NDArray::from_vector(std::vector<float>{1, 2, 3, 4, 5}, {5}));
  bad.node("QuantizeLinear", {"x", "s"}, {"q"});
  bad.output("q", dims(shape), ::onnx::TensorProto::UINT8);
  REQUIRE_THROWS_WITH(tonnx::import_bytes(bad.bytes()), Contains("a scalar or a vector of 3"));
}

TEST_CASE("converters: an RNN's ThresholdedRelu passes only values above alpha", "[onnx][converters]") {
  // One unit, W = 1, R = 0, no bias: h_t = ThresholdedRelu(x_t), 0 where x_t <= alpha = 1.
  ModelBuilder mb(13);
  mb.input("x", dims({4, 1, 1}));
  mb.initializer("w", NDArray::from_vector<float>({1}, {1, 1, 1}));
  mb.initializer("r", NDArray::from_vector<float>({0}, {1, 1, 1}));
  auto &n = mb.node("RNN", {"x", "w", "r"}, {"y"});
  attr(n, "hidden_size", int64_t{1});
  auto *acts = n.add_attribute();
  acts->set_name("activations");
  acts->set_type(::onnx::AttributeProto::STRINGS);
  acts->add_strings("ThresholdedRelu");
  auto *alphas = n.add_attribute();
  alphas->set_name("activation_alpha");
  alphas->set_type(::onnx::AttributeProto::FLOATS);
  alphas->add_floats(1.0f);
  mb.output("y");
  const NDArray y = run(mb, {{"x", NDArray::from_vector<float>({1, 0.5f, 2, 1.0001f}, {4, 1, 1})}}).at(0);
  CHECK(y.to_vector<float>() == std::vector<float>{0, 0, 2, 1.0001f});
}

TEST_CASE("converters: DynamicQuantizeLinear against its formula", "[onnx][converters][quantize]") {
  ModelBuilder mb(13);
  mb.input("x", dims({3, 5}));
  mb.node("DynamicQuantizeLinear", {"x"}, {"y", "s", "zp"});
  mb.output("y", dims({3, 5}), ::onnx::TensorProto::UINT8);
  mb.output("s", {});
  mb.output("zp", {}, ::onnx::TensorProto::UINT8);
  // Random values, and zeros, whose range of 0 gives the scale 1 / 255.
  for (const NDArray &x :
       {NDArray::random({3, 5}, Float(32), 41, -2, 5), NDArray::from_vector(std::vector<float>(15, 0.0f), {3, 5})}) {
    const graph::Outputs got = run(mb, {{"x", x}});
    const std::vector<float> xv = x.to_vector<float>();
    const float lo = std::min(0.0f, *std::min_element(xv.begin(), xv.end()));
    const float hi = std::max(0.0f, *std::max_element(xv.begin(), xv.end()));
    const float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
    const double zp = quantize(-lo / scale, 0, 0, 255);
    std::vector<double> y;
    for (float v : xv) y.push_back(quantize(v / scale, zp, 0, 255));
    check_close(got.at(1), std::vector<double>{scale});
    CHECK(as_doubles<uint8_t>(got.at(2)) == std::vector<double>{zp});
    CHECK(as_doubles<uint8_t>(got.at(0)) == y);
  }
}

TEST_CASE("converters: MatMulInteger and QLinearMatMul against integer loops", "[onnx][converters][quantize]") {
  const int64_t bt = 2, m = 3, k = 4, n = 5;
  const NDArray a = ints<uint8_t>({bt, m, k}, 0, 255, 51), b = ints<int8_t>({k, n}, -128, 127, 52);
  const NDArray azp = ints<uint8_t>({m}, 100, 150, 53), bzp = ints<int8_t>({}, -5, 5, 54);
  const std::vector<uint8_t> av = a.to_vector<uint8_t>(), azv = azp.to_vector<uint8_t>();
  const std::vector<int8_t> bv = b.to_vector<int8_t>();
  const int bz = bzp.to_vector<int8_t>()[0];
  std::vector<double> acc;
  for (int64_t p = 0; p < bt; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int32_t s = 0;
        for (int64_t q = 0; q < k; ++q)
          s += (int32_t(av[size_t((p * m + i) * k + q)]) - azv[size_t(i)]) * (int32_t(bv[size_t(q * n + j)]) - bz);
        acc.push_back(s);
      }
  ModelBuilder mi(13);
  mi.input("a", dims({bt, m, k}), ::onnx::TensorProto::UINT8);
  mi.input("b", dims({k, n}), ::onnx::TensorProto::INT8);
  mi.initializer("azp", azp);
  mi.initializer("bzp", bzp);
  mi.node("MatMulInteger", {"a", "b", "azp", "bzp"}, {"y"});
  mi.output("y", dims({bt, m, n}), ::onnx::TensorProto::INT32);
  CHECK(as_doubles<int32_t>(run(mi, {{"a", a}, {"b", b}}).at(0)) == acc);

  // QLinearMatMul of uint8 operands (zero points per tensor) into uint8.
  const NDArray b8 = ints<uint8_t>({k, n}, 0, 255, 55);
  const std::vector<uint8_t> b8v = b8.to_vector<uint8_t>();
  const float as = 0.02f, bs = 0.03f, ys = 0.5f;
  const int az = 120, bz8 = 130, yz = 128;
  ModelBuilder mq(13);
  mq.input("a", dims({bt, m, k}), ::onnx::TensorProto::UINT8);
  mq.input("b", dims({k, n}), ::onnx::TensorProto::UINT8);
  mq.initializer("as", NDArray::from_vector(std::vector<float>{as}, {}));
  mq.initializer("az", NDArray::from_vector(std::vector<uint8_t>{uint8_t(az)}, {}));
  mq.initializer("bs", NDArray::from_vector(std::vector<float>{bs}, {}));
  mq.initializer("bz", NDArray::from_vector(std::vector<uint8_t>{uint8_t(bz8)}, {}));
  mq.initializer("ys", NDArray::from_vector(std::vector<float>{ys}, {}));
  mq.initializer("yz", NDArray::from_vector(std::vector<uint8_t>{uint8_t(yz)}, {}));
  mq.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"});
  mq.output("y", dims({bt, m, n}), ::onnx::TensorProto::UINT8);
  std::vector<double> want;
  for (int64_t p = 0; p < bt; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int32_t s = 0;
        for (int64_t q = 0; q < k; ++q)
          s += (int32_t(av[size_t((p * m + i) * k + q)]) - az) * (int32_t(b8v[size_t(q * n + j)]) - bz8);
        want.push_back(quantize(float(s) * (as * bs / ys), yz, 0, 255));
      }
  CHECK(as_doubles<uint8_t>(run(mq, {{"a", a}, {"b", b8}}).at(0)) == want);
}

TEST_CASE("converters: ConvInteger and QLinearConv with per-channel weights against loops",
          "[onnx][converters][quantize]") {
  const int64_t ci = 2, co = 3, h = 5, w = 4, kh = 3;
  const NDArray x = ints<uint8_t>({1, ci, h, w}, 0, 255, 61), wt = ints<int8_t>({co, ci, kh, kh}, -128, 127, 62);
  const NDArray bias = ints<int32_t>({co}, -500, 500, 63);
  const std::vector<uint8_t> xv = x.to_vector<uint8_t>();
  const std::vector<int8_t> wv = wt.to_vector<int8_t>();
  const std::vector<int32_t> bv = bias.to_vector<int32_t>();
  const int xz = 128;
  const std::vector<int8_t> wz = {0, 2, -3};
  const std::vector<float> wsc = {0.01f, 0.02f, 0.005f};
  const float xs = 0.05f, ys = 0.3f;
  const int yz = 10;
  // Padding 1 on each side: the padding reads as the zero point, 0 once subtracted.
  std::vector<double> acc, q;
  for (int64_t o = 0; o < co; ++o)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) {
        int32_t s = 0;
        for (int64_t c = 0; c < ci; ++c)
          for (int64_t u = 0; u < kh; ++u)
            for (int64_t v = 0; v < kh; ++v) {
              const int64_t y = i + u - 1, z = j + v - 1;
              if (y < 0 || y >= h || z < 0 || z >= w) continue;
              s += (int32_t(xv[size_t((c * h + y) * w + z)]) - xz) *
                   (int32_t(wv[size_t(((o * ci + c) * kh + u) * kh + v)]) - wz[size_t(o)]);
            }
        acc.push_back(s);
        q.push_back(quantize(float(s + bv[size_t(o)]) * (xs * wsc[size_t(o)] / ys), yz, -128, 127));
      }
  auto model = [&](bool qlinear) {
    ModelBuilder mb(13);
    mb.input("x", dims(x.shape()), ::onnx::TensorProto::UINT8);
    mb.input("w", dims(wt.shape()), ::onnx::TensorProto::INT8);
    mb.initializer("xz", NDArray::from_vector(std::vector<uint8_t>{uint8_t(xz)}, {}));
    mb.initializer("wz", NDArray::from_vector(wz, {co}));
    mb.initializer("xs", NDArray::from_vector(std::vector<float>{xs}, {}));
    mb.initializer("ws", NDArray::from_vector(wsc, {co}));
    mb.initializer("ys", NDArray::from_vector(std::vector<float>{ys}, {}));
    mb.initializer("yz", NDArray::from_vector(std::vector<int8_t>{int8_t(yz)}, {}));
    mb.initializer("bias", bias);
    auto &n = qlinear ? mb.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"}, {"y"})
                      : mb.node("ConvInteger", {"x", "w", "xz", "wz"}, {"y"});
    attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
    mb.output("y", dims({1, co, h, w}), qlinear ? ::onnx::TensorProto::INT8 : ::onnx::TensorProto::INT32);
    return mb;
  };
  CHECK(as_doubles<int32_t>(run(model(false), {{"x", x}, {"w", wt}}).at(0)) == acc);
  CHECK(as_doubles<int8_t>(run(model(true), {{"x", x}, {"w", wt}}).at(0)) == q);
}
