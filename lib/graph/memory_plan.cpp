// Liveness-based storage reuse for a Graph's intermediates, and its independent checker.
#include "tensorir/graph/memory_plan.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "op_table.h"

namespace tensorir::graph {

namespace {

bool is_leaf(const Node &n) { return n.op == "input" || n.op == "constant"; }

// Intermediates: operator nodes other than the graph's outputs.
bool is_intermediate(const Graph &g, const Node &n) { return !is_leaf(n) && !g.is_output(n.id); }

size_t round_up(size_t bytes, size_t alignment) { return (bytes + alignment - 1) / alignment * alignment; }

// Per node, the steps [first, last] of `order` during which its output is live: from the
// step that produces it to the last step that reads it. Nodes not run have first == -1.
struct Lifetimes {
  std::vector<int> first, last;
};

// Checks `order` (empty: topological) and derives lifetimes from it.
Lifetimes lifetimes(const Graph &g, const std::vector<int> &order_in) {
  const std::vector<int> order = order_in.empty() ? g.topological_order() : order_in;
  const int n = static_cast<int>(g.nodes().size());
  Lifetimes lt{std::vector<int>(size_t(n), -1), std::vector<int>(size_t(n), -1)};
  for (int step = 0; step < static_cast<int>(order.size()); ++step) {
    const int id = order[size_t(step)];
    TIR_USER_CHECK(id >= 0 && id < n) << "memory plan: the execution order names node id " << id
                                      << ", which does not exist (the graph has " << n << " nodes)";
    const Node &node = g.node(id);
    TIR_USER_CHECK(lt.first[size_t(id)] < 0)
        << detail::node_prefix(node) << "appears twice in the execution order (steps " << lt.first[size_t(id)]
        << " and " << step << ")";
    for (int in : node.inputs) {
      TIR_USER_CHECK(in >= 0 && in < n) << detail::node_prefix(node) << "input node id " << in << " does not exist";
      const Node &src = g.node(in);
      TIR_USER_CHECK(is_leaf(src) || lt.first[size_t(in)] >= 0)
          << detail::node_prefix(node) << "runs at step " << step << " before its input '" << src.name
          << "'; list every node after its inputs";
      lt.last[size_t(in)] = std::max(lt.last[size_t(in)], step);
    }
    lt.first[size_t(id)] = step;
    lt.last[size_t(id)] = std::max(lt.last[size_t(id)], step);  // an unread output lives for its own step
  }
  for (const Node &node : g.nodes())
    TIR_USER_CHECK(is_leaf(node) || lt.first[size_t(node.id)] >= 0)
        << detail::node_prefix(node) << "is missing from the execution order; list every operator node once";
  return lt;
}

std::string mb(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MB", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

size_t node_bytes(const Node &n) {
  size_t count = 1;
  for (int64_t d : n.shape) count *= static_cast<size_t>(d);
  return count * static_cast<size_t>(n.dtype.bytes()) * static_cast<size_t>(n.dtype.lanes());
}

std::string MemoryPlan::str() const {
  std::ostringstream os;
  os << "memory plan: " << slot_bytes.size() << " slots, " << mb(peak_bytes) << " (naive " << mb(naive_bytes);
  if (naive_bytes) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * double(peak_bytes) / double(naive_bytes));
    os << ", " << pct;
  }
  os << ")\n";
  for (size_t s = 0; s < slot_bytes.size(); ++s) {
    os << "  slot " << s << ": " << slot_bytes[s] << " bytes, nodes";
    for (size_t id = 0; id < storage_of.size(); ++id)
      if (storage_of[id] == static_cast<int>(s)) os << " %" << id;
    os << "\n";
  }
  return os.str();
}

MemoryPlan plan_memory(const Graph &g, const std::vector<int> &execution_order, size_t alignment) {
  TIR_USER_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0)
      << "memory plan: alignment " << alignment << " must be a power of two";
  const Lifetimes lt = lifetimes(g, execution_order);
  std::vector<size_t> bytes(g.nodes().size(), 0);
  std::vector<int> first(g.nodes().size(), -1);
  for (const Node &node : g.nodes())
    if (is_intermediate(g, node)) {
      bytes[size_t(node.id)] = node_bytes(node);
      first[size_t(node.id)] = lt.first[size_t(node.id)];
    }
  return plan_memory(bytes, first, lt.last, alignment);
}

MemoryPlan plan_memory(const std::vector<size_t> &bytes, const std::vector<int> &first,
                       const std::vector<int> &last, size_t alignment, const std::vector<int> &in_place) {
  TIR_USER_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0)
      << "memory plan: alignment " << alignment << " must be a power of two";
  TIR_USER_CHECK(bytes.size() == first.size() && bytes.size() == last.size())
      << "memory plan: " << bytes.size() << " sizes, " << first.size() << " first steps and " << last.size()
      << " last steps must be one per tensor";
  TIR_USER_CHECK(in_place.empty() || in_place.size() == bytes.size())
      << "memory plan: " << in_place.size() << " in-place entries for " << bytes.size() << " tensors";
  int steps = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (first[i] < 0) continue;
    TIR_USER_CHECK(last[i] >= first[i]) << "memory plan: tensor " << i << " is last read at step " << last[i]
                                        << ", before it is written at step " << first[i];
    steps = std::max(steps, last[i] + 1);
  }
  // written[step]: tensors written at that step, in index order.
  std::vector<std::vector<size_t>> written(static_cast<size_t>(steps));
  for (size_t i = 0; i < bytes.size(); ++i)
    if (first[i] >= 0) written[size_t(first[i])].push_back(i);

  MemoryPlan plan;
  plan.storage_of.assign(bytes.size(), -1);
  std::vector<int> free_slots;
  // dying[step]: slots whose tensor is last read at that step, freed once the step is done
  // (not before, since a kernel reads its inputs while it writes its output).
  std::vector<std::vector<int>> dying(static_cast<size_t>(steps));

  for (size_t step = 0; step < size_t(steps); ++step) {
    for (size_t i : written[step]) {
      const size_t need = round_up(bytes[i], alignment);
      plan.naive_bytes += need;
      // In place: the slot of a tensor of the same size that dies at this step, kept.
      const int j = in_place.empty() ? -1 : in_place[i];
      if (j >= 0 && size_t(j) < bytes.size() && first[size_t(j)] >= 0 && first[size_t(j)] < int(step) &&
          last[size_t(j)] == int(step) && round_up(bytes[size_t(j)], alignment) == need) {
        std::vector<int> &freed = dying[step];
        const auto it = std::find(freed.begin(), freed.end(), plan.storage_of[size_t(j)]);
        if (it != freed.end()) {
          plan.storage_of[i] = *it;
          freed.erase(it);
          dying[size_t(last[i])].push_back(plan.storage_of[i]);
          continue;
        }
      }
      // Best fit: the smallest free slot that holds it; else grow the largest free slot,
      // which adds the fewest bytes; else a new slot.
      int best = -1;
      for (int s : free_slots) {
        const size_t have = plan.slot_bytes[size_t(s)];
        if (best < 0) {
          best = s;
          continue;
        }
        const size_t cur = plan.slot_bytes[size_t(best)];
        const bool fits = have >= need, cur_fits = cur >= need;
        if ((fits && (!cur_fits || have < cur)) || (!fits && !cur_fits && have > cur)) best = s;
      }
      if (best < 0) {
        best = static_cast<int>(plan.slot_bytes.size());
        plan.slot_bytes.push_back(need);
      } else {
        free_slots.erase(std::find(free_slots.begin(), free_slots.end(), best));
        plan.slot_bytes[size_t(best)] = std::max(plan.slot_bytes[size_t(best)], need);
      }
      plan.storage_of[i] = best;
      dying[size_t(last[i])].push_back(best);
    }
    for (int s : dying[step]) free_slots.push_back(s);
  }
  for (size_t b : plan.slot_bytes) plan.peak_bytes += b;
  return plan;
}

void verify_memory_plan(const Graph &g, const std::vector<int> &execution_order, const MemoryPlan &plan) {
  const Lifetimes lt = lifetimes(g, execution_order);
  TIR_USER_CHECK(plan.storage_of.size() == g.nodes().size())
      << "memory plan: storage_of has " << plan.storage_of.size() << " entries but the graph has "
      << g.nodes().size() << " nodes";
  const int slots = static_cast<int>(plan.slot_bytes.size());
  size_t total = 0;
  for (size_t b : plan.slot_bytes) total += b;
  TIR_USER_CHECK(total == plan.peak_bytes)
      << "memory plan: peak_bytes is " << plan.peak_bytes << " but the slots add up to " << total;

  std::vector<std::vector<int>> holders(static_cast<size_t>(slots));
  for (const Node &node : g.nodes()) {
    const int s = plan.storage_of[size_t(node.id)];
    if (!is_intermediate(g, node)) {
      TIR_USER_CHECK(s == -1) << detail::node_prefix(node) << "is "
                              << (g.is_output(node.id) ? "an output of the graph" : "an " + node.op)
                              << " and must keep its own storage, but the plan puts it in slot " << s;
      continue;
    }
    TIR_USER_CHECK(s >= 0 && s < slots)
        << detail::node_prefix(node) << "has slot " << s << " but the plan has " << slots << " slots";
    TIR_USER_CHECK(plan.slot_bytes[size_t(s)] >= node_bytes(node))
        << detail::node_prefix(node) << "needs " << node_bytes(node) << " bytes but slot " << s << " has only "
        << plan.slot_bytes[size_t(s)];
    holders[size_t(s)].push_back(node.id);
  }
  // Within a slot, lifetimes sorted by start must each begin after all earlier ones end.
  for (int s = 0; s < slots; ++s) {
    std::vector<int> &ids = holders[size_t(s)];
    std::sort(ids.begin(), ids.end(), [&](int a, int b) { return lt.first[size_t(a)] < lt.first[size_t(b)]; });
    int live = -1;  // the holder whose lifetime ends last so far
    for (int id : ids) {
      if (live >= 0) {
        TIR_USER_CHECK(lt.first[size_t(id)] > lt.last[size_t(live)])
            << "memory plan: slot " << s << " holds '" << g.node(live).name << "' (live at steps "
            << lt.first[size_t(live)] << ".." << lt.last[size_t(live)] << ") and '" << g.node(id).name
            << "' (live at steps " << lt.first[size_t(id)] << ".." << lt.last[size_t(id)] << ") at the same time";
      }
      if (live < 0 || lt.last[size_t(id)] > lt.last[size_t(live)]) live = id;
    }
  }
}

const StoragePlan::Place &StoragePlan::at(int id) const {
  TIR_USER_CHECK(id >= 0 && size_t(id) < of_node.size())
      << "storage plan: node id " << id << " is outside the plan of " << of_node.size() << " nodes";
  return of_node[size_t(id)];
}

std::string StoragePlan::str() const {
  std::ostringstream os;
  os << "storage plan: " << buffers.size() << " buffers, " << mb(peak_bytes) << " shared, " << mb(own_bytes)
     << " own\n";
  for (size_t b = 0; b < buffers.size(); ++b) {
    os << "  buffer " << b << ": " << buffers[b] << " bytes, nodes";
    for (size_t id = 0; id < of_node.size(); ++id)
      if (of_node[id].storage == Storage::Shared && of_node[id].buffer == int(b))
        os << " %" << id << "@" << of_node[id].offset;
    os << "\n";
  }
  return os.str();
}

StoragePlan plan_storage(const Graph &g, const std::vector<StorageStep> &steps, bool share) {
  using Storage = StoragePlan::Storage;
  const size_t n = g.nodes().size();
  StoragePlan plan;
  plan.of_node.assign(n, {});
  for (const Node &node : g.nodes())
    if (node.op == "input") plan.of_node[size_t(node.id)].storage = Storage::Input;
    else if (node.op == "constant") plan.of_node[size_t(node.id)].storage = Storage::Constant;
  // step_of[id]: the step writing node id, -1 for none.
  std::vector<int> step_of(n, -1);
  std::vector<size_t> bytes(steps.size());
  std::vector<int> first(steps.size()), last(steps.size()), in_place(steps.size(), -1);
  for (size_t k = 0; k < steps.size(); ++k) {
    const int id = steps[k].result;
    TIR_USER_CHECK(id >= 0 && size_t(id) < n) << "storage plan: step " << k << " writes node id " << id
                                              << ", which does not exist (the graph has " << n << " nodes)";
    const Node &res = g.node(id);
    TIR_USER_CHECK(plan.of_node[size_t(id)].storage == Storage::None)
        << detail::node_prefix(res) << "is written by step " << k << " but is "
        << (step_of[size_t(id)] >= 0 ? "written by step " + std::to_string(step_of[size_t(id)]) + " already"
                                     : "an " + res.op + ", which no kernel writes");
    for (int in : steps[k].reads) {
      TIR_USER_CHECK(in >= 0 && size_t(in) < n) << detail::node_prefix(res) << "reads node id " << in
                                                << ", which does not exist";
      const Storage where = plan.of_node[size_t(in)].storage;
      TIR_USER_CHECK(where != Storage::None)
          << detail::node_prefix(res) << "reads '" << g.node(in).name << "' at step " << k
          << ", before any step writes it; list every kernel after the kernels it reads";
      if (step_of[size_t(in)] >= 0) last[size_t(step_of[size_t(in)])] = std::max(last[size_t(step_of[size_t(in)])], int(k));
    }
    const int a = steps[k].in_place;
    TIR_USER_CHECK(a < int(steps[k].reads.size()))
        << detail::node_prefix(res) << "step " << k << " computes in place of read " << a << " but has "
        << steps[k].reads.size() << " reads";
    if (a >= 0) in_place[k] = step_of[size_t(steps[k].reads[size_t(a)])];  // -1 for inputs and constants
    step_of[size_t(id)] = int(k);
    plan.of_node[size_t(id)].storage = Storage::Own;  // until the memory plan shares it
    bytes[k] = node_bytes(res);
    first[k] = share && !g.is_output(id) ? int(k) : -1;
    last[k] = int(k);
  }
  const MemoryPlan mp = plan_memory(bytes, first, last, StoragePlan::kAlignment, in_place);
  plan.buffers = mp.slot_bytes;
  plan.peak_bytes = mp.peak_bytes;
  for (size_t k = 0; k < steps.size(); ++k) {
    StoragePlan::Place &p = plan.of_node[size_t(steps[k].result)];
    if (mp.storage_of[k] >= 0) {
      p = {Storage::Shared, mp.storage_of[k], 0};
      const int j = in_place[k];
      if (j >= 0 && mp.storage_of[size_t(j)] == mp.storage_of[k] && last[size_t(j)] == int(k))
        p.in_place_of = steps[size_t(j)].result;
    } else {
      plan.own_bytes += bytes[k];
    }
  }
  return plan;
}

}  // namespace tensorir::graph
