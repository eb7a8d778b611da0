// Real networks exported from PyTorch (scripts/export_models.py) imported with
// tensorir::onnx and run on "llvm", next to ONNX Runtime (onnxruntime-node, through
// bench/peers/onnxruntime_run.cjs, on the same .onnx file and inputs) and PyTorch
// (bench/onnx_peers.py rebuilds the same torch model and times it under no_grad), with the
// same thread count, batch 1.
//
//   bench_onnx [--models-dir DIR] [--models a,b] [--opset 13] [--threads 1,2] [--reps N] [--rounds N]
//        [--tuning-log FILE] [--json] [--quick] [--no-gpu]
//
// Without --models-dir the models are exported next to this executable (onnx_models/<model>,
// once). The engines take turns, --rounds times per model and thread count, so that a
// passing burst of load on the machine falls on all of them alike; each round times --reps
// runs after a warm-up. Prints a table per thread count (the median of the rounds' medians,
// tensorir / ORT and the geometric mean of it), then per model the import and compile times and tensorir's error
// against ORT's and PyTorch's outputs, max |x - ref| / max |ref|, so a fast wrong answer shows.
// With --tuning-log (tensorir tune), each model is built a second time with that log and
// timed in the same rounds: a "tuned" column and its ratio to ORT.
// A peer that cannot run gets a note saying why and how to install it (bench/install-peers.sh).
#include <tensorir/frontend/onnx.h>
#include <tensorir/graph/executor.h>
#include <tensorir/runtime/parallel.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "common.h"

using namespace tensorir;
namespace fs = std::filesystem;

namespace {

const char *kDefaultModels = "resnet18,resnet50,mobilenet_v2,squeezenet1_1,efficientnet_b0,vit_b_16,bert";
const char *kInstall = "run bench/install-peers.sh";

struct Args {
  std::string models_dir;  // empty: export into the build tree
  std::vector<std::string> models;
  std::vector<int> threads{1, 2};
  int opset = 13;
  int reps = 10;
  int rounds = 3;
  std::string tuning_log;  // empty: no tuned build
  bool json = false;
};

std::vector<std::string> split(const std::string &s, char sep = ',') {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string t; std::getline(in, t, sep);)
    if (!t.empty()) out.push_back(t);
  return out;
}

Args parse_args(int argc, char **argv) {
  Args a;
  a.models = split(kDefaultModels);
  auto value = [&](int &i) -> std::string {
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s: %s needs a value\n", argv[0], argv[i]);
      std::exit(2);
    }
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string o = argv[i];
    if (o == "--models-dir") a.models_dir = value(i);
    else if (o == "--models") a.models = split(value(i));
    else if (o == "--opset") a.opset = std::atoi(value(i).c_str());
    else if (o == "--reps") a.reps = std::max(1, std::atoi(value(i).c_str()));
    else if (o == "--rounds") a.rounds = std::max(1, std::atoi(value(i).c_str()));
    else if (o == "--tuning-log") a.tuning_log = value(i);
    else if (o == "--json") a.json = true;
    else if (o == "--quick") a.reps = 3, a.rounds = 1;
    else if (o == "--no-gpu") continue;  // make bench passes the other benches' options; no GPU rows here
    else if (o == "--threads") {
      a.threads.clear();
      for (const std::string &t : split(value(i))) a.threads.push_back(std::max(1, std::atoi(t.c_str())));
    } else if (o == "--help" || o == "-h") {
      std::printf("usage: %s [--models-dir DIR] [--models a,b] [--opset 13] [--threads 1,2] [--reps 10]\n"
                  "       [--rounds 3] [--tuning-log FILE] [--json] [--quick] [--no-gpu]\n"
                  "  --models-dir  a directory written by scripts/export_models.py (default: export the\n"
                  "                models next to this program, once)\n"
                  "  --models      models to run (default %s)\n"
                  "  --opset       which export of each model (default 13)\n"
                  "  --threads     thread counts, one run each (default 1,2)\n"
                  "  --reps        timed runs per engine and round after the warm-up (default 10)\n"
                  "  --rounds      turns each engine takes per model and thread count; the figure is the\n"
                  "                median of the rounds' medians (default 3)\n"
                  "  --tuning-log  also build each model with this tuning log (tensorir tune) and time it\n"
                  "  --json        one JSON object per result line instead of tables\n"
                  "  --quick       --reps 3 --rounds 1\n"
                  "  --no-gpu      accepted for make bench; this benchmark runs on the CPU only\n",
                  argv[0], kDefaultModels);
      std::exit(0);
    } else {
      std::fprintf(stderr, "%s: unknown option '%s' (try --help)\n", argv[0], o.c_str());
      std::exit(2);
    }
  }
  return a;
}

// The repository's files: this source sits in bench/, one level below the root.
std::string repo_file(const std::string &rel) {
  const fs::path root = fs::path(__FILE__).parent_path().parent_path();
  const fs::path p = root / rel;
  return fs::exists(p) ? p.string() : rel;
}

std::string quote(const std::string &s) { return "'" + s + "'"; }


double seconds_since(bench::Clock::time_point t0) { return bench::ms_since(t0) / 1e3; }

// One case of an export directory (a line of its manifest.tsv).
struct ModelCase {
  fs::path dir;
  std::string name, output;
  std::vector<std::pair<std::string, std::string>> inputs;  // input name, .npy file
};

// The case <model>_op<opset> of `dir`, or an empty name with `why` set.
ModelCase find_case(const fs::path &dir, const std::string &model, int opset, std::string &why) {
  const std::string want = model + "_op" + std::to_string(opset);
  std::ifstream f(dir / "manifest.tsv");
  if (!f) {
    why = "no " + (dir / "manifest.tsv").string() + " (write it with scripts/export_models.py --out DIR)";
    return {};
  }
  for (std::string line; std::getline(f, line);) {
    const std::vector<std::string> fields = split(line, '\t');
    if (fields.size() < 2 || fields[0] != want) continue;
    ModelCase c{dir, fields[0], fields[1], {}};
    for (size_t k = 2; k < fields.size(); ++k) {
      const size_t eq = fields[k].find('=');
      c.inputs.emplace_back(fields[k].substr(0, eq), eq == std::string::npos ? "" : fields[k].substr(eq + 1));
    }
    return c;
  }
  why = "no case " + want + " in " + (dir / "manifest.tsv").string();
  return {};
}

// Exports `model` at `opset` into dir (one directory per model, so one export's manifest
// never drops another's cases) unless it is there already.
void export_model(const fs::path &dir, const std::string &model, int opset, bool json) {
  std::string why;
  if (!find_case(dir, model, opset, why).name.empty()) return;
  fs::create_directories(dir);
  const std::string cmd = "/usr/bin/python3 " + quote(repo_file("scripts/export_models.py")) + " --out " +
                          quote(dir.string()) + " --models " + model + " --opsets " + std::to_string(opset) + " >&2";
  if (!json) std::printf("exporting %s (opset %d) into %s\n", model.c_str(), opset, dir.string().c_str());
  std::fflush(stdout);
  if (std::system(cmd.c_str()) != 0)
    std::fprintf(stderr, "bench_onnx: exporting %s failed (needs PyTorch: %s)\n", model.c_str(), kInstall);
}

// max |x - ref| / max |ref|, NaN counting as infinitely far; kShapeDiffers, or kRefZero
// where the reference is all zero (then the error says nothing about tensorir's answer).
constexpr double kShapeDiffers = -1, kRefZero = -3, kNotMeasured = -2;
double rel_error(const NDArray &x, const NDArray &ref) {
  if (x.shape() != ref.shape()) return kShapeDiffers;
  const std::vector<float> a = x.to_vector<float>(), b = ref.to_vector<float>();
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(double(a[i]) - double(b[i]));
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  if (scale == 0 && diff == 0) return kRefZero;
  return diff / std::max(scale, 1e-30);
}

std::string fmt_err(double e) {
  if (e == kNotMeasured) return "-";
  if (e == kShapeDiffers) return "shape differs";
  if (e == kRefZero) return "0 (ref all 0)";
  return bench::fmt_sci(e);
}

struct Peer {
  double ms = -1;
  std::string note;  // why there is no time
};

Peer parse_peer(const std::string &line, const std::string &cmd) {
  Peer p;
  p.ms = bench::json_field(line, "median_ms");
  if (p.ms < 0) p.note = "failed: " + (line.empty() ? "no output from " + cmd : line);
  return p;
}

// The median of the rounds' medians; a round that failed makes the peer's row a failure.
Peer combine_rounds(const std::vector<Peer> &rounds) {
  std::vector<double> ms;
  for (const Peer &p : rounds) {
    if (p.ms < 0) return p;
    ms.push_back(p.ms);
  }
  return ms.empty() ? Peer{-1, "not run"} : Peer{bench::median(ms), ""};
}

struct Result {
  std::string model, case_name, note;  // note: why tensorir has no time
  size_t kernels = 0;
  double import_s = -1, compile_s = -1, err_ort = kNotMeasured, err_torch = kNotMeasured;
  std::map<int, double> ms, tuned_ms;                                    // threads -> tensorir median
  double err_tuned = kNotMeasured;  // the tuned build against the untuned one
  std::map<int, Peer> ort, torch;
};

void json_row(const std::string &model, const std::string &impl, int threads, double ms,
              const std::string &extra = "") {
  std::printf("{\"bench\":\"onnx\",\"case\":%s,\"impl\":\"%s\",\"threads\":%d,\"median_ms\":%.4f%s}\n",
              bench::json_str(model).c_str(), impl.c_str(), threads, ms, extra.c_str());
  std::fflush(stdout);
}
void json_skip(const std::string &model, const std::string &impl, int threads, const std::string &why) {
  std::printf("{\"bench\":\"onnx\",\"case\":%s,\"impl\":\"%s\",\"threads\":%d,\"skipped\":true,\"reason\":%s}\n",
              bench::json_str(model).c_str(), impl.c_str(), threads, bench::json_str(why).c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  const Args a = parse_args(argc, argv);
  const fs::path exe_dir = fs::canonical("/proc/self/exe").parent_path();
  const std::string node_modules = repo_file("bench/peers/node_modules");
  const char *old_path = std::getenv("NODE_PATH");
  setenv("NODE_PATH", (node_modules + (old_path && *old_path ? ":" + std::string(old_path) : "")).c_str(), 1);

  // The peers, checked once; a missing one is named in every row it would have filled.
  std::string torch_missing, ort_missing;
  if (!bench::command_ok("/usr/bin/python3 -c 'import torch, torchvision, numpy'"))
    torch_missing = std::string("PyTorch/torchvision not installed (") + kInstall + ")";
  if (!bench::command_ok("node --version"))
    ort_missing = "node not installed (apt-get install nodejs npm, then bench/install-peers.sh)";
  else if (!bench::command_ok("node -e \"require('onnxruntime-node')\""))
    ort_missing = std::string("onnxruntime-node not installed in bench/peers/node_modules (") + kInstall + ")";
  if (!a.json) {
    std::printf("ONNX models from PyTorch, batch 1, opset %d, %d round%s of %d runs per engine (after a warm-up), "
                "engines in turn\n", a.opset, a.rounds, a.rounds == 1 ? "" : "s", a.reps);
    if (!torch_missing.empty()) std::printf("PyTorch rows missing: %s\n", torch_missing.c_str());
    if (!ort_missing.empty()) std::printf("ONNX Runtime rows missing: %s\n", ort_missing.c_str());
    bench::print_machine_load("before");
    std::fflush(stdout);
  }

  std::vector<Result> results;
  const int saved_threads = num_threads();
  for (const std::string &model : a.models) {
    Result r;
    r.model = model;
    fs::path dir = a.models_dir;
    if (dir.empty()) {
      dir = exe_dir / "onnx_models" / model;
      if (torch_missing.empty()) export_model(dir, model, a.opset, a.json);
    }
    std::string why;
    const ModelCase c = find_case(dir, model, a.opset, why);
    r.case_name = c.name;
    if (c.name.empty()) {
      r.note = why;
      results.push_back(r);
      continue;
    }
    if (!a.json) std::fprintf(stderr, "%s: importing and compiling %s\n", model.c_str(), c.name.c_str());

    std::optional<graph::CompiledModel> m, tuned;
    std::map<std::string, NDArray> feed;
    NDArray out;
    try {
      for (const auto &[name, file] : c.inputs) feed[name] = NDArray::load_npy((dir / file).string());
      auto t0 = bench::Clock::now();
      const graph::Graph g = onnx::import((dir / (c.name + ".onnx")).string());
      r.import_s = seconds_since(t0);
      t0 = bench::Clock::now();
      m = graph::build(g, "llvm");
      r.compile_s = seconds_since(t0);
      r.kernels = m->num_kernels();
      out = m->run(feed)[c.output];
      if (!a.tuning_log.empty()) {
        graph::BuildOptions o;
        o.tuning_log = a.tuning_log;
        tuned = graph::build(g, "llvm", o);
        r.err_tuned = rel_error(tuned->run(feed)[c.output], out);
      }
    } catch (const std::exception &e) {
      r.note = e.what();
      m.reset();
      tuned.reset();
    }

    std::string inputs;
    for (const auto &[name, file] : c.inputs) inputs += (inputs.empty() ? "" : ",") + (dir / file).string();
    for (int threads : a.threads) {
      if (!a.json) std::fprintf(stderr, "%s: %d threads\n", model.c_str(), threads);
      std::vector<double> ours, ours_tuned;
      std::vector<Peer> ort_rounds, torch_rounds;
      for (int round = 0; round < a.rounds; ++round) {
        if (m) {
          set_num_threads(threads);
          ours.push_back(bench::median_ms([&] { m->run(feed); }, a.reps, 2));
          if (tuned) ours_tuned.push_back(bench::median_ms([&] { tuned->run(feed); }, a.reps, 2));
          set_num_threads(saved_threads);
        }
        if (ort_missing.empty()) {
          const std::string cmd = "node " + quote(repo_file("bench/peers/onnxruntime_run.cjs")) + " " +
                                  quote(dir.string()) + " --threads " + std::to_string(threads) + " --reps " +
                                  std::to_string(a.reps) + " --cases " + c.name;
          ort_rounds.push_back(parse_peer(bench::last_line(cmd), cmd));
        }
        if (torch_missing.empty()) {
          const std::string cmd = "/usr/bin/python3 " + quote(repo_file("bench/onnx_peers.py")) + " --model " +
                                  model + " --threads " + std::to_string(threads) + " --reps " +
                                  std::to_string(a.reps) + " --inputs " + quote(inputs) + " --json";
          torch_rounds.push_back(parse_peer(bench::last_line(cmd), cmd));
        }
      }
      if (!ours.empty()) r.ms[threads] = bench::median(ours);
      if (!ours_tuned.empty()) r.tuned_ms[threads] = bench::median(ours_tuned);
      r.ort[threads] = ort_missing.empty() ? combine_rounds(ort_rounds) : Peer{-1, ort_missing};
      r.torch[threads] = torch_missing.empty() ? combine_rounds(torch_rounds) : Peer{-1, torch_missing};
    }
    // onnxruntime_run.cjs wrote ORT's output next to the model (this run's, when it ran); the
    // export wrote PyTorch's.
    if (m) {
      const fs::path ort_file = dir / (c.name + ".ort.npy"), torch_file = dir / (c.name + ".torch.npy");
      const bool ort_ran = std::any_of(r.ort.begin(), r.ort.end(), [](const auto &p) { return p.second.ms >= 0; });
      if (ort_ran && fs::exists(ort_file)) r.err_ort = rel_error(out, NDArray::load_npy(ort_file.string()));
      if (fs::exists(torch_file)) r.err_torch = rel_error(out, NDArray::load_npy(torch_file.string()));
    }
    results.push_back(r);
  }

  if (a.json) {
    for (const Result &r : results) {
      if (r.import_s >= 0)
        std::printf("{\"bench\":\"onnx\",\"case\":%s,\"impl\":\"tensorir\",\"stage\":\"import\",\"seconds\":%.3f}\n"
                    "{\"bench\":\"onnx\",\"case\":%s,\"impl\":\"tensorir\",\"stage\":\"compile\",\"seconds\":%.3f,"
                    "\"kernels\":%zu}\n",
                    bench::json_str(r.model).c_str(), r.import_s, bench::json_str(r.model).c_str(),
                    std::max(r.compile_s, 0.0), r.kernels);
      for (int t : a.threads) {
        if (r.ms.count(t))
          json_row(r.model, "tensorir", t, r.ms.at(t),
                   ",\"err_ort\":" + bench::json_num(r.err_ort) + ",\"err_torch\":" + bench::json_num(r.err_torch));
        else json_skip(r.model, "tensorir", t, r.note);
        if (r.tuned_ms.count(t))
          json_row(r.model, "tensorir-tuned", t, r.tuned_ms.at(t), ",\"err_untuned\":" + bench::json_num(r.err_tuned));
        for (const auto &[impl, peers] : {std::pair{"onnxruntime", &r.ort}, std::pair{"pytorch", &r.torch}}) {
          if (!peers->count(t)) continue;
          const Peer &p = peers->at(t);
          if (p.ms < 0) json_skip(r.model, impl, t, p.note);
          else json_row(r.model, impl, t, p.ms, r.ms.count(t) ? ",\"ratio\":" + bench::json_num(r.ms.at(t) / p.ms) : "");
        }
      }
    }
    return 0;
  }

  auto ms_cell = [](const Peer &p) { return p.ms >= 0 ? bench::fmt(p.ms, 2) : "-"; };
  const bool with_tuned = !a.tuning_log.empty();
  for (int t : a.threads) {
    std::printf("\n%d thread%s (ms: median over the rounds of a round's median wall time of a run; tensorir / ORT: "
                "below 1 is faster)\n",
                t, t == 1 ? "" : "s");
    std::vector<std::string> head = {"model", "tensorir ms", "onnxruntime ms", "pytorch ms", "tensorir / ORT"};
    if (with_tuned) head.insert(head.end(), {"tuned ms", "tuned / ORT"});
    head.push_back("note");
    bench::Table table(head);
    // Geometric means of tensorir / ORT: untuned, tuned.
    std::array<double, 2> log_sum{0, 0};
    std::array<int, 2> n{0, 0};
    for (const Result &r : results) {
      const Peer ort = r.ort.count(t) ? r.ort.at(t) : Peer{}, torch = r.torch.count(t) ? r.torch.at(t) : Peer{};
      std::vector<std::string> row = {r.model};
      for (int k = 0; k < (with_tuned ? 2 : 1); ++k) {
        const std::map<int, double> &times = k ? r.tuned_ms : r.ms;
        const double ms = times.count(t) ? times.at(t) : -1;
        std::string ratio = "-";
        if (ms > 0 && ort.ms > 0) {
          ratio = bench::fmt_ratio(ms / ort.ms);
          log_sum[size_t(k)] += std::log(ms / ort.ms);
          ++n[size_t(k)];
        }
        const std::string ms_text = ms >= 0 ? bench::fmt(ms, 2) : "-";
        if (k) row.insert(row.end(), {ms_text, ratio});
        else row.insert(row.end(), {ms_text, ms_cell(ort), ms_cell(torch), ratio});
      }
      std::string note = r.note;
      for (const auto &[who, p] : {std::pair{"onnxruntime", &ort}, std::pair{"pytorch", &torch}})
        if (!p->note.empty()) note += (note.empty() ? "" : "; ") + std::string(who) + ": " + p->note;
      row.push_back(note);
      table.add(row);
    }
    table.print();
    if (n[0] > 0) std::printf("geometric mean of tensorir / ORT over %d models: %.2f\n", n[0], std::exp(log_sum[0] / n[0]));
    if (n[1] > 0)
      std::printf("geometric mean of tuned tensorir / ORT over %d models: %.2f (--tuning-log %s)\n", n[1],
                  std::exp(log_sum[1] / n[1]), a.tuning_log.c_str());
  }

  std::printf("\ntensorir import and compile (graph::build \"llvm\"); error = max |x - ref| / max |ref|\n");
  std::vector<std::string> head = {"model", "case", "kernels", "import s", "compile s", "err vs ORT", "err vs PyTorch"};
  if (with_tuned) head.push_back("tuned vs untuned");
  bench::Table times(head);
  for (const Result &r : results) {
    std::vector<std::string> row = {r.model, r.case_name.empty() ? "-" : r.case_name,
                                    r.kernels ? std::to_string(r.kernels) : "-",
                                    r.import_s >= 0 ? bench::fmt(r.import_s, 2) : "-",
                                    r.compile_s >= 0 ? bench::fmt(r.compile_s, 2) : "-", fmt_err(r.err_ort),
                                    fmt_err(r.err_torch)};
    if (with_tuned) row.push_back(fmt_err(r.err_tuned));
    times.add(row);
  }
  times.print();
  bench::print_machine_load("after");
  return 0;
}
