// One model run from two threads at once, each with its own input: every result must
// equal the single-threaded one. The model's intermediate storage is shared, so the calls
// take turns; without that, one call's results were overwritten by the other's.
#include <tensorir/graph/executor.h>
#include <tensorir/runtime/model_loader.h>
#include <tensorir/tensorir.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>
#include <unistd.h>

using namespace tensorir;

namespace {

// exp(relu(x)) + x on 2^16 elements: enough work between binding the input and copying
// the output that an unserialized second call lands in the middle of the first.
graph::Graph small_graph() {
  graph::Builder b;
  auto x = b.input("x", {1 << 16});
  auto y = b.make("exp", {b.relu(x, "r")}, {}, "e");
  return b.finish(b.add(y, x, "y"));
}

bool same(const NDArray &a, const NDArray &b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

// Runs `call` on inputs 0 and 1 from two threads, `rounds` times each; returns how many
// results differed from `want`.
int differing(const std::function<NDArray(const NDArray &)> &call, const NDArray (&in)[2], const NDArray (&want)[2],
              int rounds) {
  std::atomic<int> bad{0};
  auto work = [&](int which) {
    for (int r = 0; r < rounds; ++r)
      if (!same(call(in[which]), want[which])) ++bad;
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  return bad;
}

}  // namespace

TEST_CASE("graph: one CompiledModel and one LoadedModel run from two threads give each call its own result",
          "[graph][threads]") {
  const graph::CompiledModel m = graph::build(small_graph(), "llvm");
  const NDArray in[2] = {NDArray::random({1 << 16}, Float(32), 1), NDArray::random({1 << 16}, Float(32), 2)};
  const NDArray want[2] = {m.run({{"x", in[0]}}).single(), m.run({{"x", in[1]}}).single()};
  REQUIRE_FALSE(same(want[0], want[1]));
  CHECK(differing([&](const NDArray &x) { return m.run({{"x", x}}).single(); }, in, want, 300) == 0);

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tensorir_concurrent_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  m.save(dir.string());
  const runtime::LoadedModel loaded = runtime::load_model(dir.string());
  CHECK(differing([&](const NDArray &x) { return loaded.run({{"x", x}}); }, in, want, 300) == 0);
  std::filesystem::remove_all(dir);
}
