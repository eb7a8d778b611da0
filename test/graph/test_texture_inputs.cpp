// bool and int64 tensors on the texture targets (a padding mask, token ids, a mask computed
// from them): stored as float32 and cast back where the graph reads them (store_as_float),
// the inputs taking the user's arrays of the declared dtype; compared with plain loops.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/passes.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

// y = where(mask, x, table[ids]): the mask picks x, else the row of `table` the id names.
graph::Graph masked_lookup(const NDArray &table) {
  graph::Builder b;
  auto x = b.input("x", {3, 8});
  auto mask = b.input("mask", {3, 8}, Bool());
  auto ids = b.input("ids", {3}, Int(64));
  auto rows = b.make("take", {b.constant("table", table), ids}, {{"axis", int64_t{0}}}, "rows");
  return b.finish(b.make("where", {mask, x, rows}, {}, "y"));
}

}  // namespace

TEST_CASE("store_as_float: bool and int64 inputs become float32 inputs read through a cast back",
          "[graph][passes]") {
  const graph::Graph g = graph::store_as_float(masked_lookup(NDArray::random({10, 8}, Float(32), 1)));
  for (const char *name : {"mask", "ids"}) {
    INFO(name);
    const graph::Node &in = g.node(name);
    CHECK(in.op == "input");
    CHECK(in.dtype == Float(32));
    CHECK(in.attr_string(graph::kDeclaredDtype) == (std::string(name) == "mask" ? "bool" : "int64"));
    const graph::Node &cast = g.node(std::string(name) + ".declared");
    CHECK(cast.op == "cast");
    CHECK(cast.dtype == (std::string(name) == "mask" ? Bool() : Int(64)));
  }
  CHECK(g.node("x").attrs.count(graph::kDeclaredDtype) == 0);
}

TEST_CASE("bool and int64 inputs on the texture targets", "[graph][opengl]") {
  const NDArray table = NDArray::random({10, 8}, Float(32), 2);
  const NDArray x = NDArray::random({3, 8}, Float(32), 3);
  const NDArray mask_i = NDArray::random({3, 8}, Int(32), 4, 0, 2);
  std::vector<bool> mask_v;
  for (int32_t v : mask_i.to_vector<int32_t>()) mask_v.push_back(v != 0);
  std::vector<uint8_t> mask_bytes(mask_v.begin(), mask_v.end());
  NDArray mask = NDArray::empty({3, 8}, Bool());
  std::memcpy(mask.data(), mask_bytes.data(), mask_bytes.size());
  const std::vector<int64_t> ids_v = {7, 0, 9};
  const NDArray ids = NDArray::from_vector<int64_t>(ids_v, {3});

  const std::vector<float> xv = x.to_vector<float>(), tv = table.to_vector<float>();
  std::vector<float> want(24);
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 8; ++c)
      want[r * 8 + c] = mask_v[r * 8 + c] ? xv[r * 8 + c] : tv[size_t(ids_v[r]) * 8 + c];

  for (const char *target : {"llvm", "opengl -mode=fragment", "webgl"}) {
    INFO(target);
    const graph::CompiledModel m = graph::build(masked_lookup(table), target);
    const NDArray y = m.run({{"x", x}, {"mask", mask}, {"ids", ids}});
    CHECK(y.to_vector<float>() == want);
  }
}

TEST_CASE("a computed bool mask read by two kernels on the texture targets", "[graph][opengl]") {
  // mask = x > 0, read by a where and, through a reduction, by a sum: it crosses kernels.
  graph::Builder b;
  auto x = b.input("x", {4, 16});
  auto mask = b.make("greater", {x, b.constant("zero", NDArray::from_vector<float>({0.f}, {1}))}, {}, "mask");
  auto kept = b.make("where", {mask, x, b.constant("low", NDArray::from_vector<float>({-2.f}, {1}))}, {}, "kept");
  auto count = b.make("reduce_sum", {b.make("cast", {mask}, {{"dtype", std::string("float32")}}, "ones")},
                      {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{1}}}, "count");
  const graph::Graph g = b.finish(b.add(kept, count, "y"));
  const NDArray xv = NDArray::random({4, 16}, Float(32), 5);
  const std::vector<float> v = xv.to_vector<float>();
  std::vector<float> want(64);
  for (size_t r = 0; r < 4; ++r) {
    float n = 0;
    for (size_t c = 0; c < 16; ++c) n += v[r * 16 + c] > 0 ? 1.f : 0.f;
    for (size_t c = 0; c < 16; ++c) want[r * 16 + c] = (v[r * 16 + c] > 0 ? v[r * 16 + c] : -2.f) + n;
  }
  for (const char *target : {"llvm", "opengl -mode=fragment", "webgl"}) {
    INFO(target);
    CHECK(graph::build(g, target).run({{"x", xv}}).to_vector<float>() == want);
  }
}

TEST_CASE("an int64 input beyond float32's exact integers is refused on the texture targets",
          "[graph][opengl][error]") {
  const graph::CompiledModel m = graph::build(masked_lookup(NDArray::random({10, 8}, Float(32), 2)), "webgl");
  NDArray mask = NDArray::empty({3, 8}, Bool());
  std::memset(mask.data(), 0, 24);
  const NDArray x = NDArray::random({3, 8}, Float(32), 3);
  const NDArray ids = NDArray::from_vector<int64_t>({1, (int64_t(1) << 24) + 1, 2}, {3});
  CHECK_THROWS_WITH(m.run({{"x", x}, {"mask", mask}, {"ids", ids}}),
                    Contains("input 'ids' holds 16777217 at element 1") && Contains("float32"));
  // The declared dtype is what a run takes: float32 ids are refused as for any model.
  const NDArray float_ids = NDArray::from_vector<float>({1, 2, 3}, {3});
  CHECK_THROWS_WITH(m.run({{"x", x}, {"mask", mask}, {"ids", float_ids}}), Contains("ids"));
}

TEST_CASE("bool and int64 outputs on the texture targets", "[graph][opengl]") {
  // A classifier's class (argmax, int64), a mask (bool) and a count of its set elements (a
  // reduce_sum of int64) as the model's outputs; the class and the mask are read in the
  // graph too (class + 10 as float32, the mask selecting x).
  graph::Builder b;
  auto x = b.input("x", {5, 12});
  auto cls = b.make("argmax", {x}, {{"axis", int64_t{1}}, {"keepdims", int64_t{0}}}, "class");
  auto pos = b.make("greater", {x, b.constant("zero", NDArray::from_vector<float>({0.f}, {1}))}, {}, "positive");
  auto count = b.make("reduce_sum", {b.make("cast", {pos}, {{"dtype", std::string("int64")}}, "ones")},
                      {{"axes", std::vector<int64_t>{1}}}, "count");
  auto shifted = b.add(b.make("cast", {cls}, {{"dtype", std::string("float32")}}, "class_f"),
                       b.constant("ten", NDArray::from_vector<float>({10.f}, {1})), "shifted");
  auto kept = b.make("where", {pos, x, b.constant("low", NDArray::from_vector<float>({-1.f}, {1}))}, {}, "kept");
  const graph::Graph g = b.finish({cls, pos, count, shifted, kept});
  const NDArray xv = NDArray::random({5, 12}, Float(32), 6);
  const std::vector<float> v = xv.to_vector<float>();
  std::vector<int64_t> want_cls(5), want_count(5);
  std::vector<uint8_t> want_pos(60);
  std::vector<float> want_shifted(5), want_kept(60);
  for (size_t r = 0; r < 5; ++r) {
    for (size_t c = 0; c < 12; ++c) {
      const float e = v[r * 12 + c];
      if (e > v[r * 12 + size_t(want_cls[r])]) want_cls[r] = int64_t(c);
      want_pos[r * 12 + c] = e > 0;
      want_count[r] += e > 0;
      want_kept[r * 12 + c] = e > 0 ? e : -1.f;
    }
    want_shifted[r] = float(want_cls[r]) + 10.f;
  }
  for (const char *target : {"llvm", "opengl -mode=fragment", "webgl"}) {
    INFO(target);
    const graph::Outputs out = graph::build(g, target).run({{"x", xv}});
    REQUIRE(out["class"].dtype() == Int(64));
    CHECK(out["class"].to_vector<int64_t>() == want_cls);
    REQUIRE(out["positive"].dtype() == Bool());
    CHECK(out["positive"].to_vector<uint8_t>() == want_pos);
    REQUIRE(out["count"].dtype() == Int(64));
    CHECK(out["count"].to_vector<int64_t>() == want_count);
    CHECK(out["shifted"].to_vector<float>() == want_shifted);
    CHECK(out["kept"].to_vector<float>() == want_kept);
  }
}

TEST_CASE("store_as_float: an int64 output keeps its name on the stored float32 value", "[graph][passes]") {
  graph::Builder b;
  auto x = b.input("x", {4, 6});
  auto cls = b.make("argmax", {x}, {{"axis", int64_t{1}}}, "class");
  auto ids = b.input("ids", {4, 1}, Int(64));
  const graph::Graph g = graph::store_as_float(b.finish({cls, b.add(cls, ids, "sum"), ids}));
  // argmax ends its kernel: it computes float32 indices itself, with no cast after it.
  const graph::Node &c = g.node("class");
  CHECK(c.op == "argmax");
  CHECK(c.dtype == Float(32));
  CHECK(c.attr_string("index_dtype") == "float32");
  CHECK(c.attr_string(graph::kDeclaredDtype) == "int64");
  // The sum reads the class as int64, through a cast back, and is stored after a cast.
  CHECK(g.node("class.declared").dtype == Int(64));
  const graph::Node &sum = g.node("sum");
  CHECK(sum.op == "cast");
  CHECK(sum.dtype == Float(32));
  CHECK(g.node("sum.computed").dtype == Int(64));
  CHECK(sum.attr_string(graph::kDeclaredDtype) == "int64");
  // An input given back as an output is the float32 input itself.
  std::vector<std::string> outputs;
  for (int id : g.outputs()) outputs.push_back(g.node(id).name);
  CHECK(outputs == std::vector<std::string>{"class", "sum", "ids"});
  // A run converts the stored values back.
  const NDArray back = graph::declared_output_value(c, NDArray::from_vector<float>({3.f, 0.f}, {2}));
  CHECK(back.dtype() == Int(64));
  CHECK(back.to_vector<int64_t>() == std::vector<int64_t>{3, 0});
}
