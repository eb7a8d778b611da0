// Compile here, run in a browser tab: a vector add and a small network built on the host
// for "webgl" and run on the page's GPU through RPC, checked against the CPU and timed
// where they run.
//
//   build/release/tools/tensorir rpc proxy &        # serves http://127.0.0.1:9190/rpc.html
//   chromium http://127.0.0.1:9190/rpc.html?key=browser   # any browser with WebGL2
//   build/release/examples/rpc_webgl [127.0.0.1:9190] [browser] [webgl|wasm]
#include <tensorir/graph/executor.h>
#include <tensorir/rpc.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

using namespace tensorir;

namespace {

float max_difference(const NDArray &a, const NDArray &b) {
  const std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  float d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(x[i] - y[i]));
  return d;
}

graph::Graph tiny_classifier() {
  graph::Builder b;
  auto x = b.input("data", {1, 3, 32, 32});
  auto w1 = b.constant("conv.weight", NDArray::random({16, 3, 3, 3}, Float(32), 1, -0.5, 0.5));
  auto y = b.relu(b.conv2d(x, w1, {.padding = {1, 1}}, "conv"), "relu");
  auto pooled = b.flatten(b.global_avg_pool2d(y, "pool"), "flatten");
  auto w2 = b.constant("fc.weight", NDArray::random({10, 16}, Float(32), 3, -0.5, 0.5));
  return b.finish(b.dense(pooled, w2, "fc"));
}

}  // namespace

int main(int argc, char **argv) {
  const std::string address = argc > 1 ? argv[1] : "127.0.0.1:9190";
  const std::string key = argc > 2 ? argv[2] : "browser";
  const std::string target = argc > 3 ? argv[3] : "webgl";
  try {
    rpc::ConnectOptions options;
    options.timeout_ms = 30000;
    rpc::Session remote = rpc::connect(address, key, options);
    std::printf("connected to '%s': %s\n", key.c_str(), remote.info_json().c_str());
    Device dev = remote.device(target);

    // A kernel: C = A + B, built here, run there.
    const int n = 1 << 20;
    Tensor A = placeholder({n}, Float(32), "A"), B = placeholder({n}, Float(32), "B");
    Tensor C = compute({n}, [&](Var i) { return A(i) + B(i); }, "C");
    Module rm = remote.load(build(create_schedule({C}), {A, B, C}, target, "add"));
    NDArray a = NDArray::random({n}, Float(32), 1), b = NDArray::random({n}, Float(32), 2);
    NDArray ra = a.to(dev), rb = b.to(dev), rc = NDArray::empty({n}, Float(32), dev);
    rm("add")(ra, rb, rc);
    NDArray expected = NDArray::empty({n}, Float(32));
    build(create_schedule({C}), {A, B, C}, "llvm", "add")("add")(a, b, expected);
    const double ms = rm.time_evaluator("add", {.number = 10, .repeat = 3})(ra, rb, rc).median_ms;
    std::printf("add of %d floats on %s: max difference from the CPU %g, %.3f ms\n", n, target.c_str(),
                max_difference(rc.to(Device::cpu()), expected), ms);

    // A network: compiled here, loaded as a whole, run and profiled there.
    graph::Graph g = tiny_classifier();
    rpc::RemoteModel model = remote.load(graph::build(g, target));
    NDArray image = NDArray::random({1, 3, 32, 32}, Float(32), 7);
    NDArray logits = model.run({{"data", image}}).begin()->second;
    NDArray local = graph::build(g, "llvm").run({{"data", image}});
    std::printf("tiny classifier on %s: max difference from the CPU %g, %.3f ms\n", target.c_str(),
                max_difference(logits, local), model.time({{"data", image}}).median_ms);
    for (const rpc::RemoteKernelProfile &k : model.profile({{"data", image}}, 5))
      std::printf("  %-24s %-10s %.3f ms\n", k.node.c_str(), k.op.c_str(), k.ms);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rpc_webgl: %s\n", e.what());
    return 1;
  }
}
