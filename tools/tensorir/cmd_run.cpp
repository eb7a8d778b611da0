// tensorir run MODEL|DIR --target T --input NAME=FILE ...: runs once (or --repeat times,
// printing the median latency), prints each output's shape and summary, writes each as
// DIR/<output>.npy with --output-dir, and prints the per-kernel times with --profile.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "cli.h"
#include "cli_checks.h"
#include "output_summary.h"
#include "runnable.h"
#include "tensorir/error.h"

namespace tensorir::cli {

namespace {

struct RunArgs {
  std::string model, target, output_dir, tuning_log;
  std::vector<std::string> inputs;
  ModelOptions model_options;
  uint64_t input_seed = 1;
  int repeat = 0;
  bool profile = false;
  bool output_given = false;  // -o, even with an empty value
};

// A file name for an output: its name with path separators replaced.
std::string file_name(std::string name) {
  for (char &c : name)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return name + ".npy";
}

// The output files of --output-dir, checked before anything runs or is written: two outputs
// whose names map to one file (a/b and a_b both to a_b.npy) would leave only the last.
void check_file_names(const std::vector<std::string> &outputs, const std::string &dir) {
  std::map<std::string, std::string> by_file;
  for (const std::string &name : outputs) {
    const auto [it, fresh] = by_file.emplace(file_name(name), name);
    if (!fresh && it->second != name)
      TIR_THROW() << "outputs '" << it->second << "' and '" << name << "' would both be written to "
                  << (std::filesystem::path(dir) / it->first).string()
                  << ": rename one of them in the model, or run without --output-dir";
  }
}

void summarise(const std::string &name, const NDArray &a) {
  std::printf("output '%s': %s %s%s\n", name.c_str(), shape_str(a.shape()).c_str(), a.dtype().str().c_str(),
              value_summary(a).c_str());
}

void run(const RunArgs &a) {
  if (a.output_given) require_output_directory(a.output_dir);
  const Runnable r = make_runnable(a.model, a.target, a.model_options, a.tuning_log);
  std::printf("%s\n", r.description.c_str());
  if (a.output_given) {
    check_file_names(r.output_names, a.output_dir);
    std::error_code ec;  // made before the run, which may be long, can fail
    std::filesystem::create_directories(a.output_dir, ec);
    if (ec) throw UsageError{"-o '" + a.output_dir + "': cannot create the directory: " + ec.message()};
  }
  const std::map<std::string, NDArray> inputs = gather_inputs(r, a.inputs, a.input_seed);
  const std::map<std::string, NDArray> outputs = r.run(inputs);
  for (const std::string &name : r.output_names) summarise(name, outputs.at(name));
  if (a.output_given) {
    for (const std::string &name : r.output_names) {
      const std::string path = (std::filesystem::path(a.output_dir) / file_name(name)).string();
      outputs.at(name).save_npy(path);
      std::printf("wrote %s\n", path.c_str());
    }
  }
  if (a.repeat > 0) {
    std::vector<double> ms;
    for (int i = 0; i < a.repeat; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      (void)r.run(inputs);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("latency: median %.3f ms over %d runs (after one warm-up run), min %.3f ms\n", median(ms), a.repeat,
                *std::min_element(ms.begin(), ms.end()));
  }
  if (a.profile) {
    std::vector<KernelTime> k = r.profile(inputs, std::max(a.repeat, 3));
    double total = 0;
    for (const KernelTime &t : k) total += t.ms;
    std::stable_sort(k.begin(), k.end(), [](const KernelTime &x, const KernelTime &y) { return x.ms > y.ms; });
    std::printf("\n%-40s %-20s %10s %7s\n", "kernel (node)", "op", "ms", "share");
    for (const KernelTime &t : k)
      std::printf("%-40s %-20s %10.4f %6.1f%%\n", t.node.c_str(), t.op.c_str(), t.ms,
                  total > 0 ? 100.0 * t.ms / total : 0.0);
    std::printf("%-40s %-20s %10.4f\n", "total", "", total);
  }
}

}  // namespace

void add_run(CLI::App &app) {
  auto a = std::make_shared<RunArgs>();
  CLI::App *cmd = app.add_subcommand("run", "run a model (an .onnx file, a built-in network or a saved model)");
  cmd->add_option("MODEL", a->model, "an .onnx file, a built-in network (" + zoo_names() +
                                         "), or a directory written by `tensorir compile --target llvm`")
      ->required();
  cmd->add_option("--target,-t", a->target, "where to compile and run it: llvm (default), opengl, ...");
  cmd->add_option("--input,-i", a->inputs, "NAME=FILE: an input from a .npy or ONNX .pb file (repeatable); "
                                           "inputs not given are seeded random");
  cmd->add_option("--input-seed", a->input_seed, "seed of the random inputs")->check(seed_number())->default_val(1);
  add_model_options(*cmd, a->model_options);
  add_weight_seed_option(*cmd, a->model_options);
  cmd->add_option("--output-dir,-o", a->output_dir, "write each output as DIR/<output name>.npy");
  cmd->add_option("--repeat", a->repeat, "time N more runs and print the median latency")
      ->check(whole_number(0, 1000000));
  cmd->add_flag("--profile", a->profile, "print each kernel's time");
  cmd->add_option("--tuning-log", a->tuning_log, "apply the best configurations of this log (tensorir tune)")
      ->check(regular_file());
  cmd->callback([a, cmd] {
    a->output_given = cmd->count("--output-dir") > 0;
    run(*a);
  });
}

}  // namespace tensorir::cli
