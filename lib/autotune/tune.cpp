// tune(): each task in turn, batch by batch: the search proposes configurations, they are
// built together, timed one at a time by the runner, logged, and fed back to the search.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "autotune/features.h"
#include "autotune/measure.h"
#include "autotune/search.h"
#include "tensorir/autotune/tuner.h"
#include "tensorir/build.h"
#include "tensorir/error.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::autotune {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double epoch_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The host's vector features, for records of CPU kernels timed here (a remote's CPU is
// not known here: its records carry none).
std::string measured_cpu(const Target &target, bool here) {
  const TargetCaps caps = target.caps();
  return here && caps.device == Device::CPU && caps.runs_in_process ? host_cpu_features() : "";
}

int hardware_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// The arguments' types and shapes.
std::string signature_key(const FuncSignature &sig) {
  std::ostringstream os;
  for (const ArgSpec &a : sig.args) {
    os << a.dtype << '[';
    for (const DimSpec &d : a.shape) os << d.coeff << '*' << d.symbol << '+' << d.offset << ',';
    os << ']';
  }
  return os.str();
}

double median_ms(const std::vector<double> &times) { return TimeResult::of(times).median_ms; }

// The space the search runs over: the task's, less the knobs it keeps at the default's
// value (Config::define_partition_knob's, unless TuneOptions::tune_partition), which
// have one choice there. Both are mixed radix, knob 0 varying fastest.
class SearchedSpace {
 public:
  SearchedSpace(const Task &task, bool tune_partition) : task_sizes_(task.knob_sizes) {
    int64_t rest = task.default_index;
    for (size_t k = 0; k < task_sizes_.size(); ++k) {
      const bool fixed = !tune_partition && k < task.knob_partition.size() && task.knob_partition[k];
      fixed_.push_back(fixed ? rest % task_sizes_[k] : -1);
      searched_sizes_.push_back(fixed ? 1 : task_sizes_[k]);
      rest /= task_sizes_[k];
    }
  }
  const std::vector<int64_t> &sizes() const { return searched_sizes_; }
  // The configurations the search can propose.
  int64_t size() const {
    int64_t n = 1;
    for (int64_t k : searched_sizes_) n *= k;
    return n;
  }
  // The task's configuration of the search's `index`, and back.
  int64_t to_task(int64_t index) const { return recode(index, searched_sizes_, task_sizes_, true); }
  int64_t to_search(int64_t index) const { return recode(index, task_sizes_, searched_sizes_, false); }
  std::vector<int64_t> to_task(const std::vector<int64_t> &indices) const {
    std::vector<int64_t> out;
    for (int64_t i : indices) out.push_back(to_task(i));
    return out;
  }

 private:
  int64_t recode(int64_t index, const std::vector<int64_t> &from, const std::vector<int64_t> &to, bool fill) const {
    int64_t out = 0, stride = 1;
    for (size_t k = 0; k < from.size(); ++k) {
      int64_t digit = index % from[k];
      index /= from[k];
      if (fixed_[k] >= 0) digit = fill ? fixed_[k] : 0;
      out += digit * stride;
      stride *= to[k];
    }
    return out;
  }
  std::vector<int64_t> task_sizes_, searched_sizes_;
  std::vector<int64_t> fixed_;  // per knob: the default's choice where kept, else -1
};

class TaskTuner {
 public:
  TaskTuner(const Task &task, const TuneOptions &o, Runner &runner)
      : task_(task), o_(o), runner_(runner), searched_(task, o.tune_partition) {
    threads_ = o.build_threads > 0 ? o.build_threads : hardware_threads();
    SearchSpace space;
    space.knob_sizes = searched_.sizes();
    space.first = searched_.to_search(task.default_index);
    space.features = [this](const std::vector<int64_t> &idx) {
      return config_features(task_, searched_.to_task(idx), threads_);
    };
    search_ = make_search(o.tuner, std::move(space), o.seed);
    cpu_ = measured_cpu(task.target, !o.runner);
  }

  // Measures batches until `trials` are done, the space runs out, or the next batch and
  // the confirmation of the best would end past `deadline` at the task's pace so far. A
  // task's first batch (it holds the default) has no pace to go by: it runs unless the
  // deadline has passed. Under a deadline the search proposes for at most as long as the
  // batch will take to build and time: annealing on the cost model lowers every
  // configuration it scores, 8-11 s a batch for a Winograd convolution against 2 s of
  // measuring it; capped, a minute of tuning measured twice the configurations and found
  // ones 1.06-1.09x faster (ResNet-18's 128-channel 3x3 layer, two seeds).
  void run(int trials, Clock::time_point deadline, std::vector<Record> &records,
           const std::function<void(int done, double best)> &after_batch) {
    int done = 0;  // in this call; after_batch gets the task's whole count
    while (trials <= 0 || done < trials) {
      const int n = trials <= 0 ? o_.batch_size : std::min(o_.batch_size, trials - done);
      Clock::time_point propose_by = Clock::time_point::max();
      if (deadline != Clock::time_point::max()) {
        const Clock::time_point now = Clock::now();
        const Clock::duration measuring = taking(n + confirm_measurements());
        if (now + measuring >= deadline) break;
        propose_by = std::min(deadline - measuring, now + taking(n));
      }
      const std::vector<int64_t> batch = search_->next_batch(n, propose_by);
      if (batch.empty()) break;
      const Clock::time_point measure_start = Clock::now();
      std::vector<double> throughput;
      for (const BuiltCandidate &c : build_candidates(task_, searched_.to_task(batch), threads_, o_.build_timeout_s))
        throughput.push_back(score(keep(measure(c), records)));
      search_->update(batch, throughput);
      done += static_cast<int>(batch.size());
      trials_ += static_cast<int>(batch.size());
      measure_s_ += seconds_since(measure_start);
      after_batch(trials_, best_gflops_);
    }
  }

  // Configurations measured by every run() so far.
  int trials() const { return trials_; }
  // The configurations the search may propose.
  int64_t space_size() const { return searched_.size(); }

  // The fastest median time measured so far, 0 for none.
  double best_ms() const {
    double best = 0;
    for (const auto &[index, ms] : first_ms_)
      if (ms > 0 && (best == 0 || ms < best)) best = ms;
    return best;
  }

  // Times the best `confirm` configurations so far and the default again, `confirm_rounds`
  // times each, in turn and in a rotating order, so that a burst of load on the machine
  // falls on all of them alike. The log's best (ApplyHistoryBest) is the lowest median
  // over a configuration's records: a configuration that was lucky once loses its place.
  void confirm(std::vector<Record> &records) {
    std::vector<std::pair<double, int64_t>> ranked;
    for (const auto &[index, ms] : first_ms_) ranked.emplace_back(ms, index);
    std::sort(ranked.begin(), ranked.end());
    std::vector<int64_t> chosen;
    for (const auto &[ms, index] : ranked)
      if (int(chosen.size()) < o_.confirm) chosen.push_back(index);
    if (first_ms_.count(task_.default_index) &&
        std::find(chosen.begin(), chosen.end(), task_.default_index) == chosen.end())
      chosen.push_back(task_.default_index);
    if (chosen.size() < 2) return;  // nothing to choose between
    std::vector<BuiltCandidate> built = build_candidates(task_, chosen, threads_, o_.build_timeout_s);
    for (int round = 0; round < o_.confirm_rounds; ++round) {
      std::rotate(built.begin(), built.begin() + 1, built.end());
      for (const BuiltCandidate &c : built) score(keep(measure(c), records));
    }
  }

 private:
  // The measurements confirm() makes.
  int confirm_measurements() const { return o_.confirm > 0 ? (o_.confirm + 1) * o_.confirm_rounds : 0; }

  // What building and timing `measurements` take at the pace so far (the search's
  // updates included); nothing before the first batch.
  Clock::duration taking(int measurements) const {
    return clock_seconds(trials_ ? measure_s_ / trials_ * measurements : 0);
  }

  // Logs `r`, keeps it, and notes its configuration's first time.
  const Record &keep(Record r, std::vector<Record> &records) {
    r = as_logged(std::move(r));  // a timer's fault ranks nothing
    if (!o_.log_file.empty()) append_record(o_.log_file, r);
    if (r.error.empty() && !r.times_ms.empty()) first_ms_.emplace(r.index, median_ms(r.times_ms));
    records.push_back(std::move(r));
    return records.back();
  }

  // GFLOP/s (or calls per millisecond where the task counts no FLOPs); 0 for a failure.
  double score(const Record &r) {
    const double ms = r.times_ms.empty() ? 0 : median_ms(r.times_ms);
    const double score = ms > 0 ? (task_.flops > 0 ? task_.flops / ms * 1e-6 : 1.0 / ms) : 0;
    if (task_.flops > 0) best_gflops_ = std::max(best_gflops_, score);
    return score;
  }

  Record measure(const BuiltCandidate &c) {
    Record r;
    r.workload = task_.workload;
    r.target = task_.target.str();
    r.cpu = cpu_;
    r.index = c.index;
    r.is_default = c.index == task_.default_index;
    r.config_json = task_.config_json ? task_.config_json(c.index) : "{}";
    r.error = c.error;
    if (r.error.empty()) {
      try {
        const Arguments &a = arguments(signature_of(c.module, c.function));
        MeasureResult m = runner_.run(c.module, c.function, a.args, a.expected.empty() ? nullptr : &a.expected,
                                      o_.measure);
        r.times_ms = std::move(m.times_ms);
        r.error = std::move(m.error);
        r.threads = m.threads;
      } catch (const std::exception &e) {
        r.error = std::string("run error: ") + e.what();
      }
    }
    r.timestamp = epoch_seconds();
    return r;
  }

  // Arguments for a signature, and with a correctness check the arrays the reference
  // configuration leaves in them.
  struct Arguments {
    std::vector<NDArray> args, expected;
  };

  // A template's knobs may change its kernel's arguments (blocked layouts), so arguments
  // are made per signature. Only candidates with the reference's signature are checked:
  // the results of another layout cannot be compared element by element.
  const Arguments &arguments(const FuncSignature &sig) {
    if (o_.check_correctness && !reference_built_) add_reference();
    const std::string key = signature_key(sig);
    auto it = arguments_.find(key);
    if (it == arguments_.end()) it = arguments_.emplace(key, Arguments{make_arguments(sig, o_.seed), {}}).first;
    return it->second;
  }

  // Built and run by the runner, where candidates run (a browser page for "wasm" and
  // "webgl"). Marked built only once it has outputs, so that a failure is every checked
  // candidate's error rather than leaving the rest unchecked.
  void add_reference() {
    Module ref;
    std::string function;
    try {
      Instance inst = task_.instantiate(task_.default_index);
      ref = build(inst.schedule, inst.args, build_target(task_, inst), inst.name);
      function = inst.name;
    } catch (const std::exception &e) {
      TIR_USER_CHECK(false) << "tuning task '" << task_.name << "': the reference configuration of the correctness "
                            << "check does not build: " << e.what();
    }
    const FuncSignature &sig = signature_of(ref, function);
    Arguments a{make_arguments(sig, o_.seed), {}};
    try {
      a.expected = runner_.outputs(ref, function, a.args);
    } catch (const std::exception &e) {
      TIR_USER_CHECK(false) << "tuning task '" << task_.name << "': the reference configuration of the correctness "
                            << "check does not run: " << e.what();
    }
    arguments_[signature_key(sig)] = std::move(a);
    reference_built_ = true;
  }

  const Task &task_;
  const TuneOptions &o_;
  Runner &runner_;
  SearchedSpace searched_;
  int threads_ = 1;
  std::unique_ptr<Search> search_;
  std::string cpu_;
  std::map<std::string, Arguments> arguments_;  // by signature_key
  bool reference_built_ = false;
  double best_gflops_ = 0;
  int trials_ = 0;                      // measured by every run() so far
  double measure_s_ = 0;                // the seconds their builds, timings and updates took
  std::map<int64_t, double> first_ms_;  // each configuration's first median time
};

}  // namespace

std::vector<double> time_shares(const std::vector<Task> &tasks, const std::vector<double> &best_ms) {
  TIR_USER_CHECK(best_ms.size() == tasks.size())
      << "time_shares: " << best_ms.size() << " times for " << tasks.size() << " tasks";
  double measured = 0;
  int with_time = 0;
  for (size_t k = 0; k < tasks.size(); ++k)
    if (best_ms[k] > 0) measured += best_ms[k], ++with_time;
  const double stand_in = with_time ? measured / with_time : 1.0;
  std::vector<double> shares;
  double total = 0;
  for (size_t k = 0; k < tasks.size(); ++k) {
    shares.push_back(std::max(tasks[k].occurrences, 1) * (best_ms[k] > 0 ? best_ms[k] : stand_in));
    total += shares.back();
  }
  for (double &s : shares) s /= total;
  return shares;
}

std::vector<Record> tune(const std::vector<Task> &tasks, const TuneOptions &options) {
  TIR_USER_CHECK(options.trials > 0 || options.time_budget_s > 0)
      << "tune: give a number of trials per task (trials > 0) or a time budget (time_budget_s > 0)";
  TIR_USER_CHECK(options.batch_size >= 1) << "tune: batch_size must be at least 1, not " << options.batch_size;
  TIR_USER_CHECK(options.time_budget_s >= 0)
      << "tune: time_budget_s is " << options.time_budget_s << "; give a number of seconds, or 0 for none";
  TIR_USER_CHECK(options.measure.timeout_s > 0) << "tune: the timeout must be positive";
  TIR_USER_CHECK(options.build_timeout_s >= 0)
      << "tune: build_timeout_s is " << options.build_timeout_s << "; give a number of seconds, or 0 for no limit";
  TIR_USER_CHECK(options.measure.threads >= 0 && options.measure.threads <= kMaxThreads)
      << "tune: measure.threads is " << options.measure.threads << "; give 1 to " << kMaxThreads
      << ", or 0 for the runtime's default";
  for (const Task &t : tasks)
    TIR_USER_CHECK(t.instantiate) << "tune: task '" << t.name << "' has no instantiate function";
  std::shared_ptr<Runner> runner = options.runner ? options.runner : local_runner();

  const Clock::time_point start = Clock::now();
  std::vector<std::unique_ptr<TaskTuner>> tuners;
  for (const Task &t : tasks) tuners.push_back(std::make_unique<TaskTuner>(t, options, *runner));
  std::vector<Record> records;
  // Per task: the most trials it may take (0: no bound but the time).
  std::vector<int> cap;
  for (const auto &tuner : tuners)
    cap.push_back(options.trials > 0 ? static_cast<int>(std::min<int64_t>(options.trials, tuner->space_size())) : 0);
  const auto search = [&](size_t k, int trials, Clock::time_point deadline) {
    tuners[k]->run(trials, deadline, records, [&](int done, double best) {
      if (!options.on_progress) return;
      Progress p;
      p.task = static_cast<int>(k);
      p.tasks = static_cast<int>(tasks.size());
      p.trials_done = done;
      p.trials = cap[k];
      p.best_gflops = best;
      p.elapsed_s = seconds_since(start);
      p.current = &tasks[k];
      if (options.time_budget_s > 0) {
        p.estimated_left_s = std::max(0.0, options.time_budget_s - p.elapsed_s);
      } else {
        int all = 0, so_far = 0;
        for (size_t j = 0; j < tasks.size(); ++j) all += cap[j], so_far += tuners[j]->trials();
        p.estimated_left_s = p.elapsed_s / double(std::max(so_far, 1)) * (all - so_far);
      }
      options.on_progress(p);
    });
  };
  const auto finish = [&](size_t k, Clock::time_point deadline) {
    const int left = cap[k] ? cap[k] - tuners[k]->trials() : 0;
    if (!cap[k] || left > 0) search(k, left, deadline);
    if (options.confirm > 0) tuners[k]->confirm(records);
  };
  if (options.time_budget_s <= 0) {
    for (size_t k = 0; k < tasks.size(); ++k) finish(k, Clock::time_point::max());
    return records;
  }
  // A first batch each tells how long each task takes (the default is in it); the time
  // left is then shared by that, so that the kernels that take most of the model's time
  // get most of the search. Shared by FLOPs, a convolution that occurs four times got a
  // quarter of its due, and one that runs at a third of the others' speed a third.
  const Clock::time_point end = start + clock_seconds(options.time_budget_s);
  for (size_t k = 0; k < tasks.size(); ++k)
    search(k, cap[k] ? std::min(cap[k], options.batch_size) : options.batch_size, end);
  std::vector<double> best;
  for (const std::unique_ptr<TaskTuner> &t : tuners) best.push_back(t->best_ms());
  const std::vector<double> shares = time_shares(tasks, best);
  const Clock::time_point second = Clock::now();
  const double left_s = std::max(0.0, std::chrono::duration<double>(end - second).count());
  double share_so_far = 0;  // unused time of earlier tasks passes on
  for (size_t k = 0; k < tasks.size(); ++k) {
    share_so_far += shares[k];
    finish(k, second + clock_seconds(left_s * share_so_far));
  }
  return records;
}

}  // namespace tensorir::autotune
