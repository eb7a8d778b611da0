// `tensorir tune --rpc`'s runner against a remote written in the test (fake_remote.h) that
// never answers the first `call`: that candidate's measurement is an error within the
// measurement timeout, and the next candidate is measured on a new connection. Then
// through `tensorir rpc proxy` to a server still running a candidate that ran out of
// time: the next candidate waits for it instead of failing too.
#include <tensorir/autotune.h>
#include <tensorir/tensorir.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>

#include "rpc/fake_remote.h"
#include "rpc/rpc_test_util.h"
#include "rpc_runner.h"
#include "rpc_server_process.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Matchers::Contains;

TEST_CASE("tune --rpc: a candidate with no reply within the timeout is an error, the next reconnects",
          "[rpc][autotune][error]") {
  std::atomic<int> calls{0};
  FakeRemote remote(FakeRemote::default_info(), [&](Connection &c, const Frame &f, Store &store) {
    if (f.header.value("op", "") == "call" && calls++ == 0) return true;  // no reply, ever
    return FakeRemote::serve_store(c, f, store);
  });
  const std::shared_ptr<autotune::Runner> runner = cli::rpc_runner(remote.address(), "native", 0.3);
  const Module m = build_add(4);
  const std::vector<NDArray> args = {NDArray::random({4}, Float(32), 1), NDArray::random({4}, Float(32), 2),
                                     NDArray::empty({4}, Float(32))};
  std::vector<float> sum = args[0].to_vector<float>(), b = args[1].to_vector<float>();
  for (size_t i = 0; i < sum.size(); ++i) sum[i] += b[i];
  const std::vector<NDArray> expected = {args[0], args[1], NDArray::from_vector(sum, {4})};
  autotune::MeasureOptions o;
  o.timeout_s = 0.3;

  const autotune::MeasureResult hung = runner->run(m, "add", args, &expected, o);
  CHECK_THAT(hung.error, Contains("rpc error") && Contains("no reply to 'call'") && Contains("within 300 ms"));
  CHECK(hung.times_ms.empty());
  CHECK(remote.wait_closed(1));

  const autotune::MeasureResult next = runner->run(m, "add", args, &expected, o);
  INFO(next.error);
  CHECK(next.error.empty());
  CHECK(next.times_ms.size() == 3);
  size_t handshakes = 0;
  for (const auto &f : remote.frames()) handshakes += f.value("type", "") == "connect";
  CHECK(handshakes == 2);
  CHECK_THROWS_WITH(cli::rpc_runner(remote.address(), "native", 0), Contains("timeout must be positive"));
}

namespace {

// out[0] = the sum of a[0] * k over 2^31 values of k, one after another: seconds of work
// for one core (a float sum is not reordered, so neither vectorised nor folded).
Module build_slow() {
  Tensor A = placeholder({1}, Float(32), "A");
  IterVar k1 = reduce_axis({0, 1 << 15}, "k1"), k2 = reduce_axis({0, 1 << 16}, "k2");
  Tensor B = compute(
      {1}, [&](Var i) { return sum(A(i) * cast(Float(32), k1 * (1 << 16) + k2), {k1, k2}); }, "B");
  return build(create_schedule({B}), {A, B}, "llvm", "slow");
}

}  // namespace

TEST_CASE("tune --rpc: the candidate after one that ran out of time waits for the remote to finish it",
          "[rpc][autotune][error][process][proxy]") {
  test::RpcProcess proxy({"proxy", "--port", "0"});
  rpc_test::ServerProcess server({"--port", "0", "--key", "native", "--proxy", proxy.address()});
  cli::RpcRunnerOptions o;
  o.timeout_s = 0.5;
  o.connect_s = 0.2;  // the proxy would refuse the busy server's key after this
  o.recover_s = 60;
  const std::shared_ptr<autotune::Runner> runner = cli::rpc_runner(proxy.address(), "native", o);
  autotune::MeasureOptions m;
  m.timeout_s = o.timeout_s;
  m.flush_cache = false;  // calls back to back: the timing itself well inside the timeout

  const std::vector<NDArray> slow_args = {NDArray::random({1}, Float(32), 1), NDArray::empty({1}, Float(32))};
  const autotune::MeasureResult hung = runner->run(build_slow(), "slow", slow_args, &slow_args, m);
  CHECK_THAT(hung.error, Contains("rpc error") && Contains("no reply to 'call'"));

  // The server is still summing; the proxy pairs no client with it until it has answered.
  const Module add = build_add(4);
  const std::vector<NDArray> args = {NDArray::random({4}, Float(32), 1), NDArray::random({4}, Float(32), 2),
                                     NDArray::empty({4}, Float(32))};
  const auto t0 = std::chrono::steady_clock::now();
  const autotune::MeasureResult next = runner->run(add, "add", args, nullptr, m);
  const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(next.error);
  CHECK(next.error.empty());
  CHECK(next.times_ms.size() == 3);
  CHECK(waited_s > o.connect_s);  // it did wait for the busy server

  o.recover_s = 0;
  CHECK_THROWS_WITH(cli::rpc_runner(proxy.address(), "native", o), Contains("must be positive"));
  CHECK(server.stop() == 0);
}
