// A tuning log checked inside its model (model_check.h): the model built with and without
// the log, profiled in turns, and each tuned workload's kernels timed where they run.
#include "tensorir/autotune/model_check.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "autotune/workload.h"
#include "graph/compiled_model.h"
#include "graph/op_table.h"
#include "tensorir/autotune/task.h"
#include "tensorir/error.h"
#include "tensorir/graph/op_registry.h"
#include "tensorir/runtime/module.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::autotune {

namespace {

double median(const std::vector<double> &v) { return TimeResult::of(v).median_ms; }

// The workload each kernel of `m` runs among those of `checked`, in the model's kernel
// order ("" for a kernel that runs none of them).
std::vector<std::string> kernel_workloads(const graph::CompiledModel &m,
                                          const std::map<std::string, const Record *> &checked,
                                          const std::vector<graph::KernelProfile> &profile) {
  const graph::Graph &g = m.graph();
  std::vector<std::string> out;
  for (const graph::KernelProfile &k : profile) {
    std::string found;
    for (const std::string &name : k.fused) {
      const graph::Node &n = g.node(name);
      if (n.op == "input" || n.op == "constant" || !graph::find_op(n.op)) continue;
      const std::string key = workload_key(g, n);
      if (checked.count(key)) {
        found = key;
        break;
      }
    }
    out.push_back(found);
  }
  return out;
}

// Per round: the mean time of a kernel of each workload, and the model's total.
struct Times {
  std::map<std::string, std::vector<double>> workload_ms;
  std::vector<double> model_ms;
};

void add_round(Times &t, const std::vector<graph::KernelProfile> &profile, const std::vector<std::string> &workloads) {
  std::map<std::string, std::pair<double, int>> sums;
  double total = 0;
  for (size_t i = 0; i < profile.size(); ++i) {
    total += profile[i].ms;
    if (workloads[i].empty()) continue;
    sums[workloads[i]].first += profile[i].ms;
    ++sums[workloads[i]].second;
  }
  for (const auto &[w, s] : sums) t.workload_ms[w].push_back(s.first / s.second);
  t.model_ms.push_back(total);
}

// A remote's profile with each kernel's group filled in from `m`, whose kernels it timed.
std::vector<graph::KernelProfile> with_groups(const graph::CompiledModel &m, std::vector<graph::KernelProfile> p) {
  const graph::CompiledModel::Impl &impl = m.impl();
  TIR_USER_CHECK(p.size() == impl.kernels.size())
      << "check_in_model: the remote's profile of the model has " << p.size() << " kernels, the model "
      << impl.kernels.size() << "; was another model loaded there?";
  for (size_t i = 0; i < p.size(); ++i) {
    if (!p[i].fused.empty()) continue;
    const graph::Kernel &k = impl.kernels[i];
    TIR_USER_CHECK(impl.graph.node(k.node).name == p[i].node)
        << "check_in_model: the remote's profile names '" << p[i].node << "' as kernel " << i
        << ", which computes '" << impl.graph.node(k.node).name << "' in the model";
    for (int id : k.nodes) p[i].fused.push_back(impl.graph.node(id).name);
  }
  return p;
}

// How `m` is profiled: here, or on the remote it is loaded on.
ModelProfiler profiler(const graph::CompiledModel &m, const std::map<std::string, NDArray> &inputs,
                       const ModelCheckOptions &options) {
  if (!options.remote) return [&m, &inputs](int repeats) { return m.profile(inputs, repeats); };
  ModelProfiler remote = options.remote(m, inputs);
  return [&m, remote](int repeats) { return with_groups(m, remote(repeats)); };
}

Record in_model_record(const Task &t, int64_t index, const std::string &config_json, std::vector<double> times,
                       bool is_default, int threads, bool remote) {
  Record r;
  r.workload = t.workload;
  r.target = t.target.str();
  // As the search's records: the host's vector features for a CPU kernel timed here.
  r.cpu = t.target.caps().device == Device::CPU && !remote ? host_cpu_features() : "";
  r.index = index;
  r.config_json = config_json;
  r.times_ms = std::move(times);
  r.timestamp = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  r.is_default = is_default;
  r.in_model = true;
  r.threads = threads;
  return r;
}

}  // namespace

std::map<std::string, NDArray> seeded_inputs(const graph::Graph &g, const std::map<std::string, NDArray> &given,
                                             uint64_t seed) {
  std::map<std::string, NDArray> inputs;
  for (int id : g.input_ids()) {
    const graph::Node &n = g.node(id);
    if (auto it = given.find(n.name); it != given.end()) {
      inputs.emplace(n.name, it->second);
      continue;
    }
    TIR_USER_CHECK(n.dtype.is_float()) << "the input '" << n.name << "' is " << n.dtype.str()
                                       << ", which cannot be seeded random; give its values";
    inputs.emplace(n.name, NDArray::random(n.shape, n.dtype, seed++));
  }
  return inputs;
}

ModelCheck check_in_model(const graph::Graph &g, const Target &target, const std::vector<Record> &log,
                          const ModelCheckOptions &options) {
  const bool remote = bool(options.remote);
  TIR_USER_CHECK(remote || target.caps().runs_in_process)
      << "check_in_model: models for " << target.str()
      << " do not run in this process; check their logs where they run (ModelCheckOptions::remote)";
  TIR_USER_CHECK(!remote || options.threads.size() == 1)
      << "check_in_model: a remote runs its models at the one thread count it has; give that count as the "
         "options' threads (got "
      << options.threads.size() << " counts)";
  TIR_USER_CHECK(options.rounds >= 1 && options.repeats >= 1)
      << "check_in_model: rounds and repeats must be at least 1, got " << options.rounds << " and " << options.repeats;
  for (int n : options.threads)
    TIR_USER_CHECK(n >= 1) << "check_in_model: a thread count must be at least 1, got " << n;
  const auto step = [&](const std::string &what) {
    if (options.on_step) options.on_step(what);
  };
  std::vector<Record> measured;  // what the search measured: an earlier check's records left out
  std::copy_if(log.begin(), log.end(), std::back_inserter(measured), [](const Record &r) { return !r.in_model; });
  auto best = std::make_shared<const ApplyHistoryBest>(measured);

  // The tasks whose best configuration in the log is not their default.
  ModelCheck out;
  std::map<std::string, const Record *> tuned;
  std::vector<Task> tasks = extract_tasks(g, target);
  std::vector<const Task *> checked_tasks;
  for (const Task &t : tasks) {
    const Record *r = best->best(t.workload, target);
    if (!r || r->config_json == t.config_json(t.default_index)) continue;
    tuned.emplace(t.workload, r);
    checked_tasks.push_back(&t);
  }
  if (checked_tasks.empty()) return out;

  graph::BuildOptions plain = options.build;
  plain.tuning_log.clear();
  plain.tuning = nullptr;
  std::optional<graph::CompiledModel> built;
  if (!options.without_log) {
    step("building the model without the log");
    built = graph::build(g, target, plain);
  }
  const graph::CompiledModel &without = options.without_log ? *options.without_log : *built;
  step("building the model with the log");
  graph::BuildOptions with = plain;
  with.tuning = best;
  const graph::CompiledModel tuned_model = graph::build(g, target, with);

  const std::map<std::string, NDArray> inputs = seeded_inputs(g, options.inputs, options.seed);
  const ModelProfiler p0 = profiler(without, inputs, options), p1 = profiler(tuned_model, inputs, options);
  const std::vector<std::string> w0 = kernel_workloads(without, tuned, p0(1));
  const std::vector<std::string> w1 = kernel_workloads(tuned_model, tuned, p1(1));
  for (const auto &[w, r] : tuned)
    TIR_ASSERT(std::count(w0.begin(), w0.end(), w) && std::count(w1.begin(), w1.end(), w))
        << "check_in_model: no kernel of the model runs the workload " << w;
  const int saved_threads = num_threads();
  out.threads = options.threads;
  if (out.threads.empty()) {
    out.threads = {1};
    if (saved_threads != 1) out.threads.push_back(saved_threads);
  }
  std::vector<Times> t0(out.threads.size()), t1(out.threads.size());
  try {
    for (int round = 0; round < options.rounds; ++round) {
      step("timing both models, round " + std::to_string(round + 1) + " of " + std::to_string(options.rounds));
      for (size_t i = 0; i < out.threads.size(); ++i) {
        if (!remote) set_num_threads(out.threads[i]);
        p0(1);  // the threads started, untimed
        add_round(t0[i], p0(options.repeats), w0);
        p1(1);
        add_round(t1[i], p1(options.repeats), w1);
      }
    }
  } catch (...) {
    set_num_threads(saved_threads);
    throw;
  }
  set_num_threads(saved_threads);
  for (size_t i = 0; i < out.threads.size(); ++i) {
    out.default_model_ms.push_back(median(t0[i].model_ms));
    out.tuned_model_ms.push_back(median(t1[i].model_ms));
  }
  for (const Task *t : checked_tasks) {
    const Record &r = *tuned.at(t->workload);
    CheckedWorkload c;
    c.workload = t->workload;
    c.name = t->name;
    c.kernels = int(std::count(w1.begin(), w1.end(), t->workload));
    for (size_t i = 0; i < out.threads.size(); ++i) {
      const std::vector<double> &d = t0[i].workload_ms.at(t->workload), &u = t1[i].workload_ms.at(t->workload);
      c.default_ms.push_back(median(d));
      c.tuned_ms.push_back(median(u));
      out.records.push_back(
          in_model_record(*t, t->default_index, t->config_json(t->default_index), d, true, out.threads[i], remote));
      out.records.push_back(in_model_record(*t, r.index, r.config_json, u, false, out.threads[i], remote));
    }
    out.workloads.push_back(c);
  }
  // Which configuration the records keep, by the rule that applies them.
  const ApplyHistoryBest kept(out.records);
  for (CheckedWorkload &c : out.workloads) c.keeps_tuned = !kept.best(c.workload, target)->is_default;
  return out;
}

}  // namespace tensorir::autotune
