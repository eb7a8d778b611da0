// `tensorir tune --rpc`'s runner against a remote written in the test (fake_remote.h) that
// never answers the first `call`: that candidate's measurement is an error within the
// measurement timeout, and the next candidate is measured on a new connection.
#include <tensorir/autotune.h>
#include <tensorir/tensorir.h>

#include <atomic>
#include <catch2/catch.hpp>

#include "rpc/fake_remote.h"
#include "rpc/rpc_test_util.h"
#include "rpc_runner.h"

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
