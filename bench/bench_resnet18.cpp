// ResNet-18 inference latency (batch 1, 3x224x224) on "llvm" with 1 and 2 threads, next to
// PyTorch (bench/resnet18_peers.py: torchvision's resnet18 under torch.no_grad()) and ONNX
// Runtime through Node.js (onnxruntime-node, fed the same model exported to ONNX opset 13 by
// that script), with the same thread count, in one run. bench/install-peers.sh installs the
// peers first (Debian packages, npm ci into bench/peers); a peer that still cannot run gets
// a row saying why. Each peer's row carries the ratio tensorir / peer. tensorir runs as
// graph::build makes it (Winograd for the 3x3 layers where it pays) and with every
// convolution direct (BuildOptions::winograd = 0), alternating, and with --tuning-log FILE
// also built with that log (`tensorir tune resnet18 -o FILE`). Ends with the ten slowest
// kernels on "llvm".
#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/runtime/parallel.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common.h"

using namespace tensorir;

namespace {

const char *kCase = "1x3x224x224";
// Multiply-adds of torchvision's resnet18 at 224x224, counted twice for GF/s.
const double kFlops = 2 * 1.814e9;

struct PeerResult {
  double ms = -1;
  std::string note;  // why there is no time
};

PeerResult run_peer(const std::string &engine, int threads, int reps) {
  const std::string cmd = "/usr/bin/python3 '" + bench::bench_file("resnet18_peers.py") + "' --engine " + engine + " --threads " +
                          std::to_string(threads) + " --reps " + std::to_string(reps) + " --json";
  const std::string line = bench::last_line(cmd);
  PeerResult r;
  r.ms = bench::json_field(line, "median_ms");
  if (r.ms < 0) r.note = "failed: " + (line.empty() ? std::string("no output from ") + cmd : line);
  return r;
}

}  // namespace

int main(int argc, char **argv) {
  const bench::Options o = bench::parse_options(argc, argv);
  const int reps = o.quick ? 5 : 20;
  if (!o.json) {
    std::printf("ResNet-18 inference, batch 1, %s, median of %d runs after warm-up\n", kCase, reps);
    bench::print_machine_load("before");
  }

  const graph::Graph g = graph::resnet18(1);
  graph::CompiledModel m = graph::build(g, "llvm");
  // The same without Winograd convolutions: every 3x3 layer direct, as before them.
  graph::BuildOptions direct_options;
  direct_options.winograd = 0;
  graph::CompiledModel direct = graph::build(g, "llvm", direct_options);
  graph::BuildOptions tuned_options;
  tuned_options.tuning_log = o.tuning_log;
  std::optional<graph::CompiledModel> tuned;
  if (!o.tuning_log.empty()) tuned = graph::build(g, "llvm", tuned_options);
  const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 42);
  const std::map<std::string, NDArray> inputs{{"data", input}};
  if (!o.json) std::printf("llvm: %zu kernels compiled in %.2f s\n\n", m.num_kernels(), m.compile_ms() / 1e3);

  // Install the peers where missing (a no-op when present), then let node find onnxruntime-node.
  const std::string install = "'" + bench::bench_file("install-peers.sh") + "'" + (o.json ? " >&2" : "");
  const bool installed = std::system(install.c_str()) == 0;
  const std::string modules = bench::bench_file("peers/node_modules");
  const char *old_path = std::getenv("NODE_PATH");
  setenv("NODE_PATH", (modules + (old_path && *old_path ? ":" + std::string(old_path) : "")).c_str(), 1);
  const bool have_torch = bench::command_ok("/usr/bin/python3 -c 'import torch, torchvision'");
  const bool have_ort = bench::command_ok("node -e \"require('onnxruntime-node')\"");
  const std::string not_installed = installed ? "" : " (bench/install-peers.sh failed: see above)";

  bench::Table table({"impl", "threads", "median ms", "GF/s", "tensorir / impl", "note"});
  const int saved_threads = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    std::vector<std::function<void()>> runs = {[&] { m.run(inputs); }, [&] { direct.run(inputs); }};
    if (!o.tuning_log.empty()) runs.push_back([&] { tuned->run(inputs); });
    const std::vector<bench::Timing> ours = bench::interleaved_medians(runs, 2, reps / 2, 0, 2);
    const double ms = ours[0].wall_ms, direct_ms = ours[1].wall_ms;
    const double tuned_ms = o.tuning_log.empty() ? -1 : ours[2].wall_ms;
    if (o.json) {
      bench::print_json("resnet18", kCase, "tensorir", threads, ms, bench::gflops(kFlops, ms));
      bench::print_json("resnet18", kCase, "tensorir-direct", threads, direct_ms, bench::gflops(kFlops, direct_ms),
                        {{"ratio", bench::json_num(ms / direct_ms)}});
    } else {
      table.add({"tensorir (llvm)", std::to_string(threads), bench::fmt(ms, 2), bench::fmt(bench::gflops(kFlops, ms)),
                 "1.00", "Winograd where it pays (BuildOptions::winograd)"});
      table.add({"tensorir (llvm, direct)", std::to_string(threads), bench::fmt(direct_ms, 2),
                 bench::fmt(bench::gflops(kFlops, direct_ms)), bench::fmt(ms / direct_ms, 2),
                 "winograd = 0: every 3x3 layer direct"});
    }
    if (tuned_ms >= 0 && o.json)
      bench::print_json("resnet18", kCase, "tensorir-tuned", threads, tuned_ms, bench::gflops(kFlops, tuned_ms),
                        {{"ratio", bench::json_num(ms / tuned_ms)}});
    else if (tuned_ms >= 0)
      table.add({"tensorir (llvm, tuned)", std::to_string(threads), bench::fmt(tuned_ms, 2),
                 bench::fmt(bench::gflops(kFlops, tuned_ms)), bench::fmt(ms / tuned_ms, 2), "--tuning-log " + o.tuning_log});

    for (const std::string engine : {"pytorch", "onnxruntime"}) {
      PeerResult r;
      if (!have_torch) r.note = "PyTorch is not installed" + not_installed;
      else if (engine == "onnxruntime" && !have_ort) r.note = "onnxruntime-node is not installed" + not_installed;
      else r = run_peer(engine, threads, reps);
      if (o.json) {
        if (r.ms >= 0)
          bench::print_json("resnet18", kCase, engine, threads, r.ms, bench::gflops(kFlops, r.ms),
                            {{"ratio", bench::json_num(ms / r.ms)}});
        else
          std::printf("{\"bench\":\"resnet18\",\"case\":\"%s\",\"impl\":\"%s\",\"threads\":%d,\"skipped\":true,"
                      "\"reason\":%s}\n",
                      kCase, engine.c_str(), threads, bench::json_str(r.note).c_str());
      } else {
        table.add({engine, std::to_string(threads), r.ms >= 0 ? bench::fmt(r.ms, 2) : "-",
                   r.ms >= 0 ? bench::fmt(bench::gflops(kFlops, r.ms)) : "-", r.ms >= 0 ? bench::fmt(ms / r.ms, 2) : "-",
                   r.note});
      }
    }
  }
  set_num_threads(saved_threads);
  if (!o.json) {
    table.print();
    bench::print_machine_load("after");
  }

  // Where the time goes: the ten slowest kernels, each the mean over `reps` runs.
  std::vector<graph::KernelProfile> prof = m.profile(inputs, reps);
  double total = 0;
  for (const auto &k : prof) total += k.ms;
  std::sort(prof.begin(), prof.end(), [](const auto &a, const auto &b) { return a.ms > b.ms; });
  if (prof.size() > 10) prof.resize(10);
  if (o.json) {
    for (const auto &k : prof)
      std::printf("{\"bench\":\"resnet18\",\"case\":\"kernel\",\"impl\":\"tensorir\",\"threads\":%d,\"node\":%s,"
                  "\"op\":%s,\"mean_ms\":%.4f}\n",
                  saved_threads, bench::json_str(k.node).c_str(), bench::json_str(k.op).c_str(), k.ms);
    return 0;
  }
  std::printf("\nTop 10 kernels on llvm, %d threads (mean of %d runs; all kernels: %.2f ms)\n", saved_threads,
              reps, total);
  bench::Table kt({"node", "op", "ms", "share"});
  for (const auto &k : prof)
    kt.add({k.node, k.op, bench::fmt(k.ms, 3), bench::fmt(total > 0 ? 100 * k.ms / total : 0.0) + "%"});
  kt.print();
  return 0;
}
