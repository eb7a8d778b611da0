// checked_index: an index read from data at run time, counted from the end when
// negative. On the CPU targets an index out of range fails the call with an Error that
// says what; the GPU targets, whose kernels cannot fail, clamp it. Against plain loops on
// random data.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "correctness/reference.h"
#include "correctness/target_runner.h"
#include "tensorir/arith/interval.h"
#include "tensorir/arith/simplify.h"

using namespace tensorir;
using namespace tensorir::testing;
using Catch::Matchers::Contains;

namespace {

constexpr int kRows = 10, kCols = 48, kIds = 203;  // 203: a partial last vector
const char *kWhat = "lookup 'y': an index in 'ids' is outside [-10, 10)";

// y[i, j] = table[ids[i], j] * 2, ids counted from the end when negative: the columns
// vectorized, the rows in parallel.
struct Lookup {
  Tensor table, ids, y;
  Schedule schedule;
};

Lookup lookup(Type id_type, bool cpu) {
  Lookup l;
  l.table = placeholder({kRows, kCols}, Float(32), "table");
  l.ids = placeholder({kIds}, id_type, "ids");
  l.y = compute({kIds, kCols}, [&](Var i, Var j) { return l.table(checked_index(l.ids(i), kRows, kWhat), j) * 2.0f; },
                "y");
  l.schedule = create_schedule({l.y});
  if (cpu) {
    auto [jo, ji] = l.schedule[l.y].split(l.y.axis(1), 16);
    l.schedule[l.y].vectorize(ji);
    l.schedule[l.y].parallel(l.y.axis(0));
  }
  return l;
}

NDArray ids_array(Type t, const std::vector<int64_t> &v) {
  NDArray a = NDArray::empty({int64_t(v.size())}, t);
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == Int(64)) static_cast<int64_t *>(a.data())[i] = v[i];
    else if (t == Int(32)) static_cast<int32_t *>(a.data())[i] = int32_t(v[i]);
    else static_cast<int8_t *>(a.data())[i] = int8_t(v[i]);
  }
  return a;
}

// Random ids in [-kRows, kRows).
std::vector<int64_t> random_ids(uint64_t seed) {
  const std::vector<int32_t> r = random_array<int32_t>({kIds}, seed, -kRows, kRows).to_vector<int32_t>();
  return {r.begin(), r.end()};
}

// The plain loops, with ids out of range clamped as the GPU targets do.
std::vector<float> reference(const NDArray &table, const std::vector<int64_t> &ids) {
  const std::vector<float> t = table.to_vector<float>();
  std::vector<float> y;
  for (int64_t k : ids) {
    const int64_t row = std::clamp<int64_t>(k < 0 ? k + kRows : k, 0, kRows - 1);
    for (int j = 0; j < kCols; ++j) y.push_back(t[size_t(row * kCols + j)] * 2.0f);
  }
  return y;
}

}  // namespace

TEST_CASE("checked_index: ids in range, negative ones from the end, on the CPU", "[correctness]") {
  const std::string target = GENERATE(as<std::string>{}, "llvm", "llvm -mcpu=x86-64-v2");
  const Type id_type = GENERATE(Int(64), Int(32), Int(8));
  INFO("target " << target << ", ids " << id_type);
  Lookup l = lookup(id_type, true);
  const NDArray table = random_array<float>({kRows, kCols}, 7);
  const std::vector<int64_t> ids = random_ids(8);
  auto out = run_on_target(target, l.schedule, {l.table, l.ids, l.y}, "lookup",
                           {table, ids_array(id_type, ids), NDArray::empty({kIds, kCols}, Float(32))});
  check_close<float>(out[2], reference(table, ids));
}

TEST_CASE("checked_index: an index out of range fails the call on the CPU, in any lane", "[correctness]") {
  const std::string target = GENERATE(as<std::string>{}, "llvm", "llvm -mcpu=x86-64-v2");
  const Type id_type = GENERATE(Int(64), Int(32), Int(8));
  INFO("target " << target << ", ids " << id_type);
  Lookup l = lookup(id_type, true);
  Module m = build(l.schedule, {l.table, l.ids, l.y}, target, "lookup");
  const NDArray table = random_array<float>({kRows, kCols}, 9);
  NDArray y = NDArray::empty({kIds, kCols}, Float(32));
  std::vector<int64_t> bad_values = {kRows, -kRows - 1, 100, -128};
  if (id_type != Int(8)) bad_values.push_back(int64_t(1) << 30);
  if (id_type == Int(64)) bad_values.push_back(int64_t(1) << 32);  // 0 if narrowed to int32 first
  for (int64_t bad : bad_values)
    for (size_t at : {size_t(0), size_t(97), size_t(kIds - 1)}) {
      INFO("ids[" << at << "] = " << bad);
      std::vector<int64_t> ids = random_ids(10 + at);
      ids[at] = bad;
      CHECK_THROWS_WITH(m("lookup")(table, ids_array(id_type, ids), y), Contains(kWhat));
    }
  // The module is usable after a failed call.
  const std::vector<int64_t> ids = random_ids(11);
  m("lookup")(table, ids_array(id_type, ids), y);
  check_close<float>(y, reference(table, ids));
}

#if TENSORIR_WITH_OPENGL
TEST_CASE("checked_index: the GPU targets read ids in range and clamp those out of range",
          "[correctness][opengl][opencl]") {
  // The fragment target stores float32 and int32 only.
  const std::vector<std::pair<std::string, Type>> cases = {
      {"opengl", Int(32)}, {"opengl", Int(64)}, {"opencl", Int(32)}, {"opencl", Int(64)},
      {"opengl -mode=fragment", Int(32)}};
  for (const auto &[target, id_type] : cases) {
    INFO("target " << target << ", ids " << id_type);
    const NDArray table = random_array<float>({kRows, kCols}, 12);
    std::vector<int64_t> ids = random_ids(13);
    for (bool clamped : {false, true}) {
      if (clamped) {
        ids[0] = kRows;
        ids[5] = -kRows - 3;
        ids[kIds - 1] = 1 << 20;
      }
      Lookup l = lookup(id_type, false);
      auto out = run_on_target(target, l.schedule, {l.table, l.ids, l.y}, "lookup",
                               {table, ids_array(id_type, ids), NDArray::empty({kIds, kCols}, Float(32))});
      check_close<float>(out[2], reference(table, ids));
    }
  }
}
#endif  // TENSORIR_WITH_OPENGL

TEST_CASE("checked_index: ids along the vectorized axis, each lane checked", "[correctness]") {
  // y[i, j] = table[ids[j], i]: the ids are a vector of 16 per step, 203 of them (a tail).
  const std::string target = GENERATE(as<std::string>{}, "llvm", "llvm -mcpu=x86-64-v2");
  INFO("target " << target);
  Tensor table = placeholder({kRows, 4}, Float(32), "table"), ids = placeholder({kIds}, Int(64), "ids");
  Tensor y = compute({4, kIds}, [&](Var i, Var j) { return table(checked_index(ids(j), kRows, kWhat), i); }, "y");
  Schedule s = create_schedule({y});
  auto [jo, ji] = s[y].split(y.axis(1), 16);
  s[y].vectorize(ji);
  s[y].parallel(y.axis(0));
  Module m = build(s, {table, ids, y}, target, "lookup");
  CHECK_THAT(m.source("ll"), Contains("index_fail"));
  const NDArray t = random_array<float>({kRows, 4}, 14);
  NDArray out = NDArray::empty({4, kIds}, Float(32));
  const std::vector<int64_t> good = random_ids(15);
  m("lookup")(t, ids_array(Int(64), good), out);
  const std::vector<float> tv = t.to_vector<float>();
  std::vector<float> want;
  for (int i = 0; i < 4; ++i)
    for (int64_t k : good) want.push_back(tv[size_t((k < 0 ? k + kRows : k) * 4 + i)]);
  check_close<float>(out, want);
  for (size_t at : {size_t(0), size_t(7), size_t(15), size_t(16), size_t(200), size_t(kIds - 1)}) {
    INFO("ids[" << at << "] out of range");
    std::vector<int64_t> bad = good;
    bad[at] = at % 2 ? kRows : -kRows - 1;
    CHECK_THROWS_WITH(m("lookup")(t, ids_array(Int(64), bad), out), Contains(kWhat));
  }
}

TEST_CASE("checked_index: under a select, only the ids it picks are checked", "[correctness]") {
  // y[j] = keep[j] ? table[ids[j]] : -1, vectorized (a condition per lane) and with a
  // condition the same for every lane (j < limit, limit a scalar argument).
  const std::string target = GENERATE(as<std::string>{}, "llvm", "llvm -mcpu=x86-64-v2");
  const bool per_lane = GENERATE(true, false);
  INFO("target " << target << (per_lane ? ", a condition per lane" : ", one condition"));
  Tensor table = placeholder({kRows}, Float(32), "table"), ids = placeholder({kIds}, Int(32), "ids");
  Tensor keep = placeholder({kIds}, Int(32), "keep");
  Var limit("limit");
  Tensor y = compute(
      {kIds},
      [&](Var j) {
        Expr picked = per_lane ? keep(j) != 0 : j < limit;
        return select(picked, table(checked_index(ids(j), kRows, kWhat)), -1.0f);
      },
      "y");
  Schedule s = create_schedule({y});
  auto [jo, ji] = s[y].split(y.axis(0), 8);
  if (per_lane) s[y].vectorize(ji);
  Module m = build(s, {table, ids, keep, limit, y}, target, "lookup");
  const NDArray t = random_array<float>({kRows}, 16);
  const std::vector<float> tv = t.to_vector<float>();
  std::vector<int64_t> idv = random_ids(17);
  const std::vector<int32_t> kv = random_array<int32_t>({kIds}, 18, 0, 2).to_vector<int32_t>();
  const int lim = 150;
  auto picked = [&](size_t j) { return per_lane ? kv[j] != 0 : int(j) < lim; };
  for (size_t j = 0; j < idv.size(); ++j)
    if (!picked(j)) idv[j] = (j % 3 == 0) ? 1000 : -1000;  // never read
  NDArray out = NDArray::empty({kIds}, Float(32));
  const NDArray keep_arr = NDArray::from_vector<int32_t>(std::vector<int32_t>(kv), {kIds});
  m("lookup")(t, ids_array(Int(32), idv), keep_arr, lim, out);
  std::vector<float> want;
  for (size_t j = 0; j < idv.size(); ++j)
    want.push_back(picked(j) ? tv[size_t(idv[j] < 0 ? idv[j] + kRows : idv[j])] : -1.0f);
  check_close<float>(out, want);
  // A picked one out of range fails.
  size_t first = 0;
  while (!picked(first)) ++first;
  idv[first] = kRows;
  CHECK_THROWS_WITH(m("lookup")(t, ids_array(Int(32), idv), keep_arr, lim, out), Contains(kWhat));
}

TEST_CASE("checked_index: its range is known, so the read it feeds needs no guard", "[correctness]") {
  Var k("k");
  const Expr c = checked_index(k, 10, "k");
  CHECK(c.type() == Int(32));
  const Interval r = eval_interval(c, {{k.get(), Interval{Expr(-1000), Expr(1000)}}});
  REQUIRE(r.min.defined());
  REQUIRE(r.max.defined());
  REQUIRE(r.min.as<IntImmNode>());
  REQUIRE(r.max.as<IntImmNode>());
  CHECK(r.min.as<IntImmNode>()->value == 0);
  CHECK(r.max.as<IntImmNode>()->value == 9);
  // Proven in bounds: under a select with a condition per lane, the read of the table
  // through the checked index is a plain vector load, not a masked one.
  Tensor table = placeholder({kRows, 64}, Float(32), "table"), ids = placeholder({4}, Int(64), "ids");
  Tensor y = compute({4, 64}, [&](Var i, Var j) {
    return select(j % 3 != 0, table(checked_index(ids(i), kRows, kWhat), j), 0.0f);
  }, "y");
  Schedule s = create_schedule({y});
  auto [jo, ji] = s[y].split(y.axis(1), 16);
  s[y].vectorize(ji);
  const std::string ir = build(s, {table, ids, y}, "llvm", "lookup").source("ll");
  CHECK_THAT(ir, Contains("index_fail"));
  CHECK_THAT(ir, !Contains("masked.load") && !Contains("masked.gather"));
  CHECK_THROWS_WITH(checked_index(Expr(1.5f), 10, "x"), Contains("signed integer"));
  CHECK_THROWS_WITH(checked_index(k, 0, "x"), Contains("the extent 0 must be in [1, 2^31)"));
  CHECK_THROWS_WITH(checked_index(cast(Int(8), k), 300, "x"), Contains("the extent 300"));
}
