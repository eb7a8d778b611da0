// The memory planner: slot reuse on chains and diamonds, ResNet-18 savings, random DAGs
// in random orders against a pairwise overlap check written here, and the checker's errors.
#include <tensorir/graph/memory_plan.h>
#include <tensorir/graph/models.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>

using namespace tensorir;
using Catch::Matchers::Contains;

namespace {

size_t bytes_of(const graph::Node &n) {
  size_t c = 4;  // every test tensor is float32
  for (int64_t d : n.shape) c *= size_t(d);
  return c;
}

bool intermediate(const graph::Graph &g, const graph::Node &n) {
  return n.op != "input" && n.op != "constant" && n.id != g.output();
}

// Per node, [produced, last read] as step indices in `order`.
std::vector<std::pair<int, int>> live_ranges(const graph::Graph &g, const std::vector<int> &order) {
  std::vector<std::pair<int, int>> r(g.nodes().size(), {-1, -1});
  for (int step = 0; step < int(order.size()); ++step) {
    r[size_t(order[size_t(step)])] = {step, step};
  }
  for (int step = 0; step < int(order.size()); ++step)
    for (int in : g.node(order[size_t(step)]).inputs) r[size_t(in)].second = std::max(r[size_t(in)].second, step);
  return r;
}

// Every pair of intermediates sharing a slot must have disjoint lifetimes, and each slot
// must hold its tensors; returns the largest total of intermediate bytes live at one step.
size_t check_pairwise(const graph::Graph &g, const std::vector<int> &order, const graph::MemoryPlan &plan) {
  const auto r = live_ranges(g, order);
  const auto &nodes = g.nodes();
  for (const auto &a : nodes) {
    if (!intermediate(g, a)) {
      REQUIRE(plan.storage_of[size_t(a.id)] == -1);
      continue;
    }
    const int sa = plan.storage_of[size_t(a.id)];
    REQUIRE(sa >= 0);
    REQUIRE(sa < int(plan.slot_bytes.size()));
    REQUIRE(plan.slot_bytes[size_t(sa)] >= bytes_of(a));
    for (const auto &b : nodes) {
      if (b.id <= a.id || !intermediate(g, b) || plan.storage_of[size_t(b.id)] != sa) continue;
      const bool overlap = r[size_t(a.id)].first <= r[size_t(b.id)].second && r[size_t(b.id)].first <= r[size_t(a.id)].second;
      INFO("slot " << sa << " shared by " << a.name << " and " << b.name);
      REQUIRE_FALSE(overlap);
    }
  }
  size_t most = 0;
  for (int step = 0; step < int(order.size()); ++step) {
    size_t live = 0;
    for (const auto &n : nodes)
      if (intermediate(g, n) && r[size_t(n.id)].first <= step && step <= r[size_t(n.id)].second) live += bytes_of(n);
    most = std::max(most, live);
  }
  return most;
}

graph::Graph chain(int length) {
  graph::Builder b;
  graph::NodeRef x = b.input("x", {1, 8, 16, 16});
  for (int i = 0; i < length; ++i) x = b.relu(x);
  return b.finish(x);
}

// Nodes with random shapes reading 1-3 random earlier nodes; shapes are not checked by
// the planner, so any shape will do. `few_shapes`: two shapes only, so that many results
// have the size of one of their inputs.
graph::Graph random_dag(uint64_t seed, bool few_shapes = false) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
  graph::Graph g;
  const int leaves = 1 + pick(3), ops = 5 + pick(40);
  for (int i = 0; i < leaves; ++i) {
    graph::Node n;
    n.name = "leaf" + std::to_string(i);
    n.op = i == 0 ? "input" : "constant";
    n.shape = {1 + pick(64), 1 + pick(64)};
    g.add_node(n);
  }
  for (int i = 0; i < ops; ++i) {
    graph::Node n;
    n.name = "op" + std::to_string(i);
    n.op = "add";
    const int size = int(g.nodes().size());
    for (int k = 1 + pick(3); k > 0; --k) {
      // Mostly recent nodes, sometimes far back, so some tensors live long.
      n.inputs.push_back(pick(4) == 0 ? pick(size) : std::max(0, size - 1 - pick(3)));
    }
    n.shape = few_shapes ? std::vector<int64_t>{8, 8 * (1 + pick(2))} : std::vector<int64_t>{1 + pick(64), 1 + pick(64)};
    g.add_node(n);
  }
  g.set_output(int(g.nodes().size()) - 1 - pick(2));
  return g;
}

// A topological order picking uniformly among the ready nodes.
std::vector<int> random_order(const graph::Graph &g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const size_t n = g.nodes().size();
  std::vector<int> waiting(n, 0), order;
  std::vector<std::vector<int>> readers(n);
  for (const auto &node : g.nodes())
    for (int in : node.inputs) {
      ++waiting[size_t(node.id)];
      readers[size_t(in)].push_back(node.id);
    }
  std::vector<int> ready;
  for (size_t i = 0; i < n; ++i)
    if (!waiting[i]) ready.push_back(int(i));
  while (!ready.empty()) {
    const size_t k = rng() % ready.size();
    const int id = ready[k];
    ready.erase(ready.begin() + long(k));
    order.push_back(id);
    for (int r : readers[size_t(id)])
      if (--waiting[size_t(r)] == 0) ready.push_back(r);
  }
  return order;
}

}  // namespace

TEST_CASE("memory plan: a chain alternates between two slots", "[graph][memory_plan]") {
  const graph::Graph g = chain(6);  // x -> relu x6; the last relu is the output
  const graph::MemoryPlan plan = graph::plan_memory(g);
  INFO(plan.str());
  const size_t bytes = 1 * 8 * 16 * 16 * 4;
  REQUIRE(plan.slot_bytes == std::vector<size_t>{bytes, bytes});
  CHECK(plan.storage_of == std::vector<int>{-1, 0, 1, 0, 1, 0, -1});
  CHECK(plan.peak_bytes == 2 * bytes);
  CHECK(plan.naive_bytes == 5 * bytes);
  CHECK_NOTHROW(graph::verify_memory_plan(g, {}, plan));
  check_pairwise(g, g.topological_order(), plan);
}

TEST_CASE("memory plan: a tensor read twice lives until its last reader", "[graph][memory_plan]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto a = b.relu(x, "a");
  auto p = b.relu(a, "p");
  auto q = b.relu(p, "q");
  auto r = b.relu(q, "r");
  auto d = b.add(a, r, "d");  // reads a again, three steps later
  auto out = b.relu(d, "out");
  const graph::Graph g = b.finish(out);
  const graph::MemoryPlan plan = graph::plan_memory(g);
  INFO(plan.str());
  const auto &s = plan.storage_of;
  // a is live while p, q and r are made, so none of them may take its slot...
  CHECK(s[size_t(a.id)] != s[size_t(p.id)]);
  CHECK(s[size_t(a.id)] != s[size_t(q.id)]);
  CHECK(s[size_t(a.id)] != s[size_t(r.id)]);
  // ...and d is made while a and r are read, so it takes q's slot, free again by then.
  CHECK(s[size_t(d.id)] == s[size_t(q.id)]);
  CHECK(s[size_t(d.id)] != s[size_t(a.id)]);
  CHECK(s[size_t(d.id)] != s[size_t(r.id)]);
  CHECK(plan.slot_bytes.size() == 3);
  CHECK_NOTHROW(graph::verify_memory_plan(g, {}, plan));
  check_pairwise(g, g.topological_order(), plan);

  // Sharing a's slot with q is caught by the checker.
  graph::MemoryPlan bad = plan;
  bad.storage_of[size_t(q.id)] = bad.storage_of[size_t(a.id)];
  REQUIRE_THROWS_WITH(graph::verify_memory_plan(g, {}, bad), Contains("'a'") && Contains("'q'") &&
                                                                  Contains("at the same time"));
}

TEST_CASE("memory plan: slots grow to the largest tensor they hold", "[graph][memory_plan]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto w = b.constant("w", NDArray::random({16, 4, 3, 3}, Float(32), 1));
  auto small = b.relu(x, "small");                    // 1 KiB, slot 0
  auto r1 = b.relu(small, "r1");                       // 1 KiB, slot 1
  auto big = b.conv2d(r1, w, {.padding = {1, 1}}, "big");  // 4 KiB: slot 0 is free again and grows
  auto pooled = b.max_pool2d(big, {2, 2}, {2, 2}, {0, 0}, "pooled");  // 1 KiB: slot 1 fits
  auto out = b.relu(pooled, "out");
  const graph::Graph g = b.finish(out);
  const graph::MemoryPlan plan = graph::plan_memory(g, {}, 256);
  INFO(plan.str());
  CHECK(plan.storage_of[size_t(small.id)] == 0);
  CHECK(plan.storage_of[size_t(r1.id)] == 1);
  CHECK(plan.storage_of[size_t(big.id)] == 0);
  CHECK(plan.storage_of[size_t(pooled.id)] == 1);
  CHECK(plan.slot_bytes == std::vector<size_t>{4096, 1024});
  CHECK(plan.peak_bytes == 5120);
  CHECK_NOTHROW(graph::verify_memory_plan(g, {}, plan));

  // A slot smaller than its tensor is caught.
  graph::MemoryPlan bad = plan;
  bad.slot_bytes[0] = 1024;
  bad.peak_bytes = 2048;
  REQUIRE_THROWS_WITH(graph::verify_memory_plan(g, {}, bad), Contains("node 'big'") && Contains("4096 bytes"));
  // Putting a parameter or the output into a slot is caught.
  bad = plan;
  bad.storage_of[size_t(out.id)] = 0;
  REQUIRE_THROWS_WITH(graph::verify_memory_plan(g, {}, bad), Contains("node 'out'") && Contains("output"));
  bad = plan;
  bad.storage_of[size_t(w.id)] = 0;
  REQUIRE_THROWS_WITH(graph::verify_memory_plan(g, {}, bad), Contains("node 'w'") && Contains("constant"));
}

TEST_CASE("memory plan: bad execution orders are errors", "[graph][memory_plan][error]") {
  const graph::Graph g = chain(3);  // x=0, relu 1, 2, 3
  REQUIRE_THROWS_WITH(graph::plan_memory(g, {0, 2, 1, 3}), Contains("runs at step 1 before its input"));
  REQUIRE_THROWS_WITH(graph::plan_memory(g, {0, 1, 2}), Contains("missing from the execution order"));
  REQUIRE_THROWS_WITH(graph::plan_memory(g, {0, 1, 1, 2, 3}), Contains("appears twice"));
  REQUIRE_THROWS_WITH(graph::plan_memory(g, {0, 1, 2, 7}), Contains("node id 7, which does not exist"));
  REQUIRE_THROWS_WITH(graph::plan_memory(g, {}, 48), Contains("power of two"));
  CHECK_NOTHROW(graph::plan_memory(g, {1, 2, 3}));  // inputs may be left out
}

TEST_CASE("memory plan: random DAGs in random orders", "[graph][memory_plan]") {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const graph::Graph g = random_dag(seed);
    const std::vector<int> order = random_order(g, seed * 7919);
    REQUIRE(order.size() == g.nodes().size());
    INFO("seed " << seed << "\n" << g.str());
    const graph::MemoryPlan plan = graph::plan_memory(g, order, 64);
    INFO(plan.str());
    REQUIRE_NOTHROW(graph::verify_memory_plan(g, order, plan));
    const size_t live_peak = check_pairwise(g, order, plan);
    CHECK(plan.peak_bytes >= live_peak);
    CHECK(plan.peak_bytes <= plan.naive_bytes);
    for (size_t b : plan.slot_bytes) CHECK(b % 64 == 0);
  }
}

TEST_CASE("memory plan: resnet18 intermediates", "[graph][memory_plan][resnet18]") {
  const graph::Graph g = graph::resnet18(1);
  const std::vector<int> order = g.topological_order();
  const graph::MemoryPlan plan = graph::plan_memory(g, order);
  REQUIRE_NOTHROW(graph::verify_memory_plan(g, order, plan));
  const size_t live_peak = check_pairwise(g, order, plan);
  char line[200];
  std::snprintf(line, sizeof line, "resnet18 memory plan: %zu slots, peak %.2f MB vs naive %.2f MB (most live at once %.2f MB)",
                plan.slot_bytes.size(), double(plan.peak_bytes) / 1048576.0, double(plan.naive_bytes) / 1048576.0,
                double(live_peak) / 1048576.0);
  WARN(line);
  CHECK(plan.peak_bytes < plan.naive_bytes);
  CHECK(plan.peak_bytes >= live_peak);
}

TEST_CASE("storage plan: random DAGs with several outputs, one kernel per node", "[graph][memory_plan]") {
  using Storage = graph::StoragePlan::Storage;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    graph::Graph g = random_dag(seed);
    // Up to three outputs, among them, sometimes, a node that later nodes read.
    std::vector<int> outs = {g.outputs()[0]};
    const int n = int(g.nodes().size());
    for (int id : {n - 3, n / 2})
      if (g.node(id).op == "add" && std::find(outs.begin(), outs.end(), id) == outs.end()) outs.push_back(id);
    g.set_outputs(outs);
    std::vector<graph::StorageStep> steps;
    for (int id : random_order(g, seed * 31))
      if (g.node(id).op == "add") steps.push_back({id, g.node(id).inputs});
    INFO("seed " << seed << "\n" << g.str());
    const graph::StoragePlan plan = graph::plan_storage(g, steps);
    INFO(plan.str());
    // Lifetimes in steps, computed here: from the writing step to the last reading one.
    std::vector<int> first(size_t(n), -1), last(size_t(n), -1);
    for (int k = 0; k < int(steps.size()); ++k) {
      first[size_t(steps[size_t(k)].result)] = last[size_t(steps[size_t(k)].result)] = k;
      for (int in : steps[size_t(k)].reads) last[size_t(in)] = std::max(last[size_t(in)], k);
    }
    size_t own = 0, total = 0;
    for (size_t b : plan.buffers) {
      CHECK(b % 64 == 0);
      total += b;
    }
    CHECK(plan.peak_bytes == total);
    for (const graph::Node &a : g.nodes()) {
      const graph::StoragePlan::Place &pa = plan.at(a.id);
      if (a.op != "add") {
        CHECK(pa.storage == (a.op == "input" ? Storage::Input : Storage::Constant));
        continue;
      }
      if (g.is_output(a.id)) {
        CHECK(pa.storage == Storage::Own);
        own += bytes_of(a);
        continue;
      }
      REQUIRE(pa.storage == Storage::Shared);
      REQUIRE(pa.buffer >= 0);
      REQUIRE(size_t(pa.buffer) < plan.buffers.size());
      CHECK(pa.offset % 64 == 0);
      CHECK(pa.offset + bytes_of(a) <= plan.buffers[size_t(pa.buffer)]);
      for (const graph::Node &b : g.nodes()) {
        const graph::StoragePlan::Place &pb = plan.at(b.id);
        if (b.id <= a.id || pb.storage != Storage::Shared || pb.buffer != pa.buffer) continue;
        const bool live_together = first[size_t(a.id)] <= last[size_t(b.id)] && first[size_t(b.id)] <= last[size_t(a.id)];
        const bool apart = pa.offset + bytes_of(a) <= pb.offset || pb.offset + bytes_of(b) <= pa.offset;
        INFO(a.name << " and " << b.name << " in buffer " << pa.buffer);
        CHECK((!live_together || apart));
      }
    }
    CHECK(plan.own_bytes == own);
    // Unshared: every result has storage of its own.
    const graph::StoragePlan unshared = graph::plan_storage(g, steps, false);
    CHECK(unshared.buffers.empty());
    CHECK(unshared.peak_bytes == 0);
    size_t all = 0;
    for (const graph::StorageStep &s : steps) {
      CHECK(unshared.at(s.result).storage == Storage::Own);
      all += bytes_of(g.node(s.result));
    }
    CHECK(unshared.own_bytes == all);
  }
}

TEST_CASE("storage plan: a result takes the storage of the input it may overwrite where that input dies",
          "[graph][memory_plan]") {
  using Storage = graph::StoragePlan::Storage;
  int taken = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const graph::Graph g = random_dag(seed, true);
    std::mt19937_64 rng(seed * 7);
    std::vector<graph::StorageStep> steps;
    for (int id : random_order(g, seed * 31))
      if (g.node(id).op == "add") {
        const std::vector<int> &reads = g.node(id).inputs;
        steps.push_back({id, reads, int(rng() % (reads.size() + 1)) - 1});
      }
    INFO("seed " << seed << "\n" << g.str());
    const graph::StoragePlan plan = graph::plan_storage(g, steps);
    INFO(plan.str());
    std::vector<int> first(g.nodes().size(), -1), last(g.nodes().size(), -1);
    for (int k = 0; k < int(steps.size()); ++k) {
      first[size_t(steps[size_t(k)].result)] = last[size_t(steps[size_t(k)].result)] = k;
      for (int in : steps[size_t(k)].reads) last[size_t(in)] = std::max(last[size_t(in)], k);
    }
    for (int k = 0; k < int(steps.size()); ++k) {
      const graph::StorageStep &s = steps[size_t(k)];
      const int j = s.in_place >= 0 ? s.reads[size_t(s.in_place)] : -1;
      // Taken exactly where allowed: j a shared result that dies here, of the same size.
      const bool allowed = j >= 0 && plan.at(j).storage == Storage::Shared &&
                           plan.at(s.result).storage == Storage::Shared && last[size_t(j)] == k &&
                           bytes_of(g.node(j)) == bytes_of(g.node(s.result));
      const graph::StoragePlan::Place &p = plan.at(s.result);
      CHECK(p.in_place_of == (allowed ? j : -1));
      if (!allowed) continue;
      ++taken;
      CHECK(p.buffer == plan.at(j).buffer);
      CHECK(p.offset == plan.at(j).offset);
    }
    // Any two other results live at one step keep apart.
    for (const graph::Node &a : g.nodes())
      for (const graph::Node &b : g.nodes()) {
        const graph::StoragePlan::Place &pa = plan.at(a.id), &pb = plan.at(b.id);
        if (b.id <= a.id || pa.storage != Storage::Shared || pb.storage != Storage::Shared || pa.buffer != pb.buffer)
          continue;
        if (pa.in_place_of == b.id || pb.in_place_of == a.id) continue;
        const bool live_together = first[size_t(a.id)] <= last[size_t(b.id)] && first[size_t(b.id)] <= last[size_t(a.id)];
        const bool apart = pa.offset + bytes_of(a) <= pb.offset || pb.offset + bytes_of(b) <= pa.offset;
        INFO(a.name << " and " << b.name << " in buffer " << pa.buffer);
        CHECK((!live_together || apart));
      }
  }
  CHECK(taken > 20);
}

TEST_CASE("storage plan: node bytes count every lane, and bad steps are errors", "[graph][memory_plan][error]") {
  graph::Node v;
  v.shape = {3, 5};
  v.dtype = Float(32, 4);
  CHECK(graph::node_bytes(v) == 3 * 5 * 4 * 4);
  v.dtype = Bool();
  CHECK(graph::node_bytes(v) == 15);

  const graph::Graph g = chain(3);  // x=0, relu 1, 2, 3
  CHECK_THROWS_WITH(graph::plan_storage(g, {{0, {}}}), Contains("'x'") && Contains("an input, which no kernel writes"));
  CHECK_THROWS_WITH(graph::plan_storage(g, {{1, {0}}, {1, {0}}}), Contains("written by step 0 already"));
  CHECK_THROWS_WITH(graph::plan_storage(g, {{2, {1}}, {1, {0}}}), Contains("reads '") && Contains("before any step writes it"));
  CHECK_THROWS_WITH(graph::plan_storage(g, {{9, {}}}), Contains("node id 9, which does not exist"));
  CHECK_THROWS_WITH(graph::plan_storage(g, {{1, {0}}}).at(4), Contains("outside the plan"));
}
