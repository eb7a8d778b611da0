// tensorir tune MODEL --target T [--trials N | --time 10m] -o LOG: the schedules of a
// model's tunable kernels searched by measurement (include/tensorir/autotune.h), here or
// on an RPC remote, into a log that `graph::BuildOptions::tuning_log` applies.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "cli.h"
#include "cli_checks.h"
#include "rpc/connection.h"
#include "rpc_model_check.h"
#include "rpc_runner.h"
#include "tensorir/autotune.h"
#include "tensorir/rpc.h"
#include "tensorir/runtime/parallel.h"

namespace tensorir::cli {

namespace {

struct TuneArgs {
  std::string model, target, log, time, tuner = "xgb", rpc, key;
  ModelOptions model_options;
  int trials = 0, threads = 0, batch = 8, confirm = 3;
  double timeout = 10;
  uint64_t seed = 0;
  bool check = false, no_cache_flush = false, tune_partition = false, no_model_check = false;
};

std::string clock_text(double s) {
  char buf[32];
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%02ld:%02ld", t / 60, t % 60);
  return buf;
}

// One line, rewritten in place on a terminal; one line per batch otherwise.
void show_progress(const autotune::Progress &p) {
  static const bool tty = ::isatty(2);
  std::string name = p.current ? p.current->name : "";
  if (name.size() > 40) name = name.substr(0, 37) + "...";
  std::fprintf(stderr, "%s[task %d/%d] %-40s %4d", tty ? "\r\033[K" : "", p.task + 1, p.tasks, name.c_str(),
               p.trials_done);
  if (p.trials > 0) std::fprintf(stderr, "/%d", p.trials);
  std::fprintf(stderr, " trials, best %.1f GFLOP/s, %s elapsed, ~%s left%s", p.best_gflops,
               clock_text(p.elapsed_s).c_str(), clock_text(p.estimated_left_s).c_str(), tty ? "" : "\n");
  std::fflush(stderr);
}

// The log, checked before any work: the run's records must be appendable, and appended
// to a log that reads back (one bad line makes the whole log unreadable).
// Whether it created the log.
bool check_log(const std::string &path) {
  if (path.empty()) throw UsageError{"-o '': give the file to append the log to, e.g. -o model.log"};
  std::error_code missing;
  const bool existed = std::filesystem::exists(path, missing);
  if (existed) require_regular_file(path, "the log");
  std::FILE *f = std::fopen(path.c_str(), "a");  // created when missing
  if (!f)
    TIR_THROW() << "cannot open the log '" << path << "' for appending: " << std::strerror(errno)
                << " (does its directory exist, and may it be written?)";
  std::fclose(f);
  // A run stopped while writing leaves its last line cut off: a record appended after it
  // would be glued onto that line. Only the last byte is read here; read_log reads the rest.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (in.tellg() <= 0) return !existed;
  in.seekg(-1, std::ios::end);
  if (in.get() != '\n') {
    in.seekg(0);
    const auto lines = std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
    TIR_THROW() << "the log '" << path << "' ends in a cut-off line (line " << lines + 1
                << " has no newline at its end): repair or remove that line, then tune again";
  }
  autotune::read_log(path);  // an Error naming a malformed line
  return false;
}

// A log this run created is removed when the run fails before writing a record to it:
// a failed first run (an unreachable --rpc, say) leaves no empty file behind.
struct NewLogCleanup {
  std::string path;
  bool created;
  int exceptions = std::uncaught_exceptions();
  ~NewLogCleanup() {
    std::error_code ec;
    if (created && std::uncaught_exceptions() > exceptions && std::filesystem::file_size(path, ec) == 0 && !ec)
      std::filesystem::remove(path, ec);
  }
};

// The tasks' trials and best times; a line on the tasks that measured nothing, which a
// time budget too short for a first batch of each leaves.
void print_summary(const std::vector<autotune::Task> &tasks, const std::vector<autotune::Record> &records,
                   bool time_budget) {
  std::printf("%-44s %7s %7s %10s %9s\n", "task", "trials", "errors", "best ms", "GFLOP/s");
  int unmeasured = 0;
  for (const autotune::Task &t : tasks) {
    int trials = 0, errors = 0;
    double best = 0;
    for (const autotune::Record &r : records) {
      if (r.workload != t.workload || r.target != t.target.str()) continue;
      ++trials;
      if (!r.error.empty()) {
        ++errors;
        continue;
      }
      const double ms = TimeResult::of(r.times_ms).median_ms;
      if (best == 0 || ms < best) best = ms;
    }
    unmeasured += trials == 0;
    std::string name = t.name.size() > 44 ? t.name.substr(0, 41) + "..." : t.name;
    if (best > 0)
      std::printf("%-44s %7d %7d %10.4f %9.1f\n", name.c_str(), trials, errors, best, t.flops / best * 1e-6);
    else
      std::printf("%-44s %7d %7d %10s %9s\n", name.c_str(), trials, errors, "-", "-");
  }
  if (unmeasured > 0)
    std::printf("%d of %zu tasks measured no configuration%s\n", unmeasured, tasks.size(),
                time_budget ? ": a longer --time would give each a first batch" : "");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "a / b" of `values`, each with `digits` decimals.
std::string joined(const std::vector<double> &values, int digits) {
  std::string out;
  char buf[32];
  for (double v : values) {
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    out += (out.empty() ? "" : " / ") + std::string(buf);
  }
  return out;
}

// The log checked inside the model (autotune::check_in_model) as `o` says where; its
// records appended.
void check_log_in_model(const graph::Graph &g, const Target &target, const std::string &log,
                        const graph::CompiledModel &without_log, autotune::ModelCheckOptions o) {
  o.without_log = &without_log;
  o.on_step = [](const std::string &what) {
    std::fprintf(stderr, "%schecking the log in the model: %s%s", ::isatty(2) ? "\r\033[K" : "", what.c_str(),
                 ::isatty(2) ? "" : "\n");
    std::fflush(stderr);
  };
  const autotune::ModelCheck c = autotune::check_in_model(g, target, autotune::read_log(log), o);
  if (::isatty(2)) std::fprintf(stderr, "\n");
  if (c.workloads.empty()) {
    std::printf("every workload's best configuration is its default: nothing to check in the model\n");
    return;
  }
  std::string counts;
  for (int n : c.threads) counts += (counts.empty() ? "" : " / ") + std::to_string(n);
  std::printf("\nin the model%s, on %s thread%s, each kernel's mean time in ms with the default and with the log's "
              "best:\n",
              o.remote ? " on the remote" : "", counts.c_str(), counts == "1" ? "" : "s");
  std::printf("%-44s %7s %17s %17s  %s\n", "task", "kernels", "default", "log", "kept");
  int kept = 0;
  for (const autotune::CheckedWorkload &w : c.workloads) {
    const std::string name = w.name.size() > 44 ? w.name.substr(0, 41) + "..." : w.name;
    std::printf("%-44s %7d %17s %17s  %s\n", name.c_str(), w.kernels, joined(w.default_ms, 4).c_str(),
                joined(w.tuned_ms, 4).c_str(), w.keeps_tuned ? "log" : "default");
    kept += w.keeps_tuned;
  }
  for (const autotune::Record &r : c.records) autotune::append_record(log, r);
  std::printf("the model's kernels took %s ms without the log and %s ms with it; the log's best is kept for %d of "
              "%zu workloads, the default for the others (%zu records timed in the model appended)\n",
              joined(c.default_model_ms, 3).c_str(), joined(c.tuned_model_ms, 3).c_str(), kept, c.workloads.size(),
              c.records.size());
}

void tune(const TuneArgs &a) {
  const auto start = std::chrono::steady_clock::now();
  if (a.trials <= 0 && a.time.empty()) throw UsageError{"give --trials N or --time DURATION (e.g. --time 10m)"};
  if (!a.key.empty() && a.rpc.empty()) throw UsageError{"--key names a remote of --rpc HOST:PORT; give --rpc too"};
  if (!a.rpc.empty() && a.key.empty())
    throw UsageError{"--rpc " + a.rpc + " needs --key K: the key of a remote at the proxy, or the server's --key"};
  if (a.tuner != "xgb" && a.tuner != "random")
    throw UsageError{"--tuner '" + a.tuner + "': expected xgb (cost-model guided) or random"};
  const Target target(a.target);
  if (a.rpc.empty() && !target.caps().runs_in_process)
    throw UsageError{"--target " + a.target + ": its code runs elsewhere (a browser page); measure it there with "
                     "--rpc HOST:PORT --key K (tensorir rpc proxy)"};
  if (!a.rpc.empty()) {
    std::string host, port;
    rpc::split_address(a.rpc, host, port);  // an Error naming a malformed address, before any work
  }
  autotune::TuneOptions o;
  o.trials = a.trials;
  o.time_budget_s = a.time.empty() ? 0 : duration_seconds(a.time);
  o.log_file = a.log;
  o.tuner = a.tuner;
  o.batch_size = a.batch;
  o.seed = a.seed;
  o.measure.threads = a.threads;
  o.measure.timeout_s = a.timeout;
  o.measure.flush_cache = !a.no_cache_flush;
  o.check_correctness = a.check;
  o.confirm = a.confirm;
  o.tune_partition = a.tune_partition;
  o.on_progress = show_progress;

  const graph::Graph g = load_graph(a.model, a.model_options);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, target);
  if (tasks.empty()) {
    std::printf("%s has no tunable kernels for %s; nothing written\n", a.model.c_str(), target.str().c_str());
    return;
  }
  const NewLogCleanup cleanup{a.log, check_log(a.log)};
  std::printf("%s for %s: %zu tasks, measured %s, log %s\n", a.model.c_str(), target.str().c_str(), tasks.size(),
              a.rpc.empty() ? "here" : ("on " + a.rpc).c_str(), a.log.c_str());
  std::fflush(stdout);
  // The model without a log, built first: the check after the search compares with it,
  // and its build and run times tell what of a time budget to leave the check.
  bool model_check = !a.no_model_check;
  if (model_check && !a.rpc.empty() && !rpc::remote_loads_models(target.kind)) {
    std::printf("the log will not be checked in the model: models built for %s cannot be loaded on a remote\n",
                target.str().c_str());
    model_check = false;
  }
  std::map<std::string, NDArray> inputs;
  if (model_check) {
    try {
      inputs = autotune::seeded_inputs(g, {}, 0);
    } catch (const Error &e) {
      std::printf("the log will not be checked in the model: %s\n", e.what());
      model_check = false;
    }
  }
  std::optional<graph::CompiledModel> without_log;
  autotune::ModelCheckOptions check;
  if (model_check) {
    // A remote is connected to first: a wrong address or key fails before any build.
    autotune::ModelCheckOptions probe;
    if (!a.rpc.empty()) time_models_on_remote(probe, a.rpc, a.key, target);
    const auto t0 = std::chrono::steady_clock::now();
    without_log = graph::build(g, target);
    const double build_s = seconds_since(t0);
    double load_s = 0, run_s = 0;
    if (a.rpc.empty()) {
      const auto t1 = std::chrono::steady_clock::now();
      without_log->run(inputs);
      run_s = seconds_since(t1);
    } else {
      // The remote loads and runs the model once now, for the budget; one that cannot
      // leaves the log unchecked. The probe's session closes before the runner's opens
      // (a page serves one at a time).
      try {
        const auto t1 = std::chrono::steady_clock::now();
        const autotune::ModelProfiler profile = probe.remote(*without_log, inputs);
        profile(1);
        load_s = seconds_since(t1);
        const auto t2 = std::chrono::steady_clock::now();
        profile(1);
        run_s = seconds_since(t2);
      } catch (const Error &e) {
        std::printf("the log will not be checked in the model: %s\n", e.what());
        model_check = false;
      }
    }
    const double runs = 2.0 * check.rounds * (check.repeats + 1) * (a.rpc.empty() ? 2 : 1);
    // The check builds the model with the log (its tuned kernels can take longer to
    // compile than the defaults) and reads the whole log: margins, so that a run given 10
    // minutes ends within them (ResNet-18's ran 3 s over without them). A further 1% is
    // for a last batch slower than the search's pace so far.
    const double check_s = 2 * build_s + 2 * load_s + 1.25 * runs * run_s + 2;
    if (model_check && o.time_budget_s > 0)
      o.time_budget_s = std::max(
          o.time_budget_s - seconds_since(start) - check_s - std::max(2.0, 0.01 * o.time_budget_s), 1.0);
  }
  if (!a.rpc.empty()) o.runner = rpc_runner(a.rpc, a.key, a.timeout);
  const std::vector<autotune::Record> records = autotune::tune(tasks, o);
  if (::isatty(2)) std::fprintf(stderr, "\n");
  print_summary(tasks, records, o.time_budget_s > 0);
  std::printf("appended %zu records to %s\n", records.size(), a.log.c_str());
  if (!model_check) return;
  if (a.rpc.empty()) {
    check_log_in_model(g, target, a.log, *without_log, check);
    return;
  }
  o.runner.reset();  // the runner's session closed: a page serves one at a time
  // The search's records are in the log already: a remote lost now costs the check only.
  try {
    time_models_on_remote(check, a.rpc, a.key, target);
    check_log_in_model(g, target, a.log, *without_log, check);
  } catch (const Error &e) {
    std::printf("the log was not checked in the model on the remote: %s\n", e.what());
  }
}

}  // namespace

void add_tune(CLI::App &app) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App *cmd = app.add_subcommand("tune", "search the schedules of a model's kernels by measurement into a log");
  cmd->add_option("MODEL", a->model, "an .onnx file, or a built-in network: " + zoo_names())->required();
  cmd->add_option("--target,-t", a->target, "the target to tune for, e.g. llvm")->required();
  cmd->add_option("-o,--output", a->log, "the log: one JSON line per measurement, appended")->required();
  auto *trials = cmd->add_option("--trials", a->trials, "configurations measured per task, at most")
                     ->check(whole_number(1, 1000000));
  cmd->add_option("--time", a->time,
                  "a budget for the whole run (90s, 10m, 1.5h): a first batch per task, then the rest shared "
                  "by each task's time in the model")
      ->check(duration(1, 720 * 3600))
      ->excludes(trials);
  cmd->add_option("--threads", a->threads, "threads each kernel runs on (default: the cores)")
      ->check(whole_number(1, kMaxThreads));
  cmd->add_option("--tuner", a->tuner, "xgb (a cost model guides the search) or random")->default_val("xgb");
  cmd->add_option("--batch", a->batch, "configurations built together")->check(whole_number(1, 1024))->default_val(8);
  cmd->add_option("--timeout", a->timeout, "seconds one measurement may take")->check(seconds(86400))
      ->default_val(10);
  cmd->add_option("--seed", a->seed, "the search's seed, and a built-in network's weights")
      ->check(seed_number())
      ->default_val(0);
  cmd->add_option("--confirm", a->confirm,
                  "after each task's search, time its N best configurations and the default again, twice each "
                  "in turn, and keep the best over all of a configuration's times (0: off)")
      ->check(whole_number(0, 1000))
      ->default_val(3);
  cmd->add_flag("--check", a->check, "compare every candidate's result with the default schedule's");
  cmd->add_flag("--tune-partition", a->tune_partition,
               "search which thread computes which part of a result (the knobs that put rows or channel "
               "groups in parallel) too; by default they keep the untuned choice, which a kernel timed alone "
               "cannot judge against the partition of the kernel before it");
  cmd->add_flag("--no-cache-flush", a->no_cache_flush,
               "time kernels hot, back to back, instead of evicting their data from the caches before "
               "each call as a model's other kernels do (locally by flushing the arguments; on an RPC "
               "remote by overwriting 256 MiB of its memory)");
  cmd->add_flag("--no-model-check", a->no_model_check,
               "after the search, do not time the log's choices inside the model; by default each workload "
               "whose best configuration is not its default is timed there against the default, on one "
               "thread and on the default count (with --rpc: on the remote, at the count it runs models "
               "at), and the log's is kept only where it is faster on each (records marked in_model)");
  cmd->add_option("--rpc", a->rpc, "measure on an RPC proxy or server, HOST:PORT");
  cmd->add_option("--key", a->key, "the key of the remote to pair with at the proxy");
  add_model_options(*cmd, a->model_options);
  cmd->callback([a] {
    a->model_options.seed = a->seed;
    tune(*a);
  });
}

}  // namespace tensorir::cli
