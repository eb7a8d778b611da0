// Tuning "wasm" and "webgl" kernels on the RPC page in headless Chromium: a small
// network's tasks tuned there through the runner of `tensorir tune --rpc`, each
// candidate checked on the page against the default configuration run on the page; the
// network built with the log runs there and matches "llvm" run here, and a log is checked
// in the model there.
#include <tensorir/autotune.h>
#include <tensorir/graph/executor.h>
#include <tensorir/rpc.h>

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>

#include "autotune/log_test_util.h"
#include "rpc/rpc_process.h"
#include "rpc/rpc_test_util.h"
#include "rpc_model_check.h"
#include "rpc_runner.h"

using namespace tensorir;
using namespace tensorir::rpc_test;

namespace {

// The page serves one session at a time: the runner's, then the model's.
struct Page {
  test::RpcProcess proxy{{"proxy", "--port", "0", "--quiet"}};
  test::BrowserPage page{proxy.address(), "browser"};
};

std::string temp_log(const std::string &target) {
  return (std::filesystem::temp_directory_path() /
          ("tir_tune_page_" + target + "_" + std::to_string(getpid()) + ".log")).string();
}

}  // namespace

TEST_CASE("rpc page: wasm and webgl kernels tuned in the browser, the network built with the log matches llvm",
          "[rpc][page][autotune]") {
  Page p;
  // 8 channels: the convolution's channel blocks are knobs on both targets.
  const graph::Graph g = small_convnet(12, 8, 6);
  const std::map<std::string, NDArray> inputs = {{"image", NDArray::random({1, 3, 12, 12}, Float(32), 45)}};
  const std::vector<float> want = graph::build(g, "llvm").run(inputs).to_vector<float>();
  for (const std::string target : {"wasm", "webgl"}) {
    INFO("target " << target);
    const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, target);
    REQUIRE_FALSE(tasks.empty());
    const std::string log = temp_log(target);
    std::filesystem::remove(log);
    {
      autotune::TuneOptions o;
      o.trials = 4;
      o.batch_size = 2;
      o.tuner = "random";
      o.check_correctness = true;
      o.confirm = 1;  // the best and the default timed once more, on the page too
      o.confirm_rounds = 1;
      o.log_file = log;
      o.measure.time = {.number = 1, .repeat = 2, .min_repeat_ms = 1};
      o.measure.timeout_s = 60;  // a busy machine compiles shaders slowly
      o.runner = cli::rpc_runner(p.proxy.address(), "browser", o.measure.timeout_s);
      autotune::tune(tasks, o);
    }  // the runner's session closes: the page is free again
    const std::vector<autotune::Record> records = autotune::read_log(log);
    REQUIRE(records.size() >= tasks.size());
    for (const autotune::Record &r : records) {
      INFO(r.workload << " " << r.config_json);
      REQUIRE(r.error.empty());
      REQUIRE(r.times_ms.size() == 2);
      REQUIRE(r.target == Target(target).str());
    }
    {
      graph::BuildOptions options;
      options.tuning_log = log;
      rpc::Session session = rpc::connect(p.proxy.address(), "browser", {.timeout_ms = 30000, .token = ""});
      rpc::RemoteModel m = session.load(graph::build(g, target, options));
      const std::map<std::string, NDArray> out = m.run(inputs);
      REQUIRE(out.count("prob") == 1);
      check_close(out.at("prob").to_vector<float>(), want, target == "webgl" ? 1e-3 : 1e-4);
    }
    std::filesystem::remove(log);

    // A log checked in the model on the page (tensorir tune --rpc): every workload whose
    // best is not its default timed there, at the page's thread count for the target.
    autotune::ModelCheckOptions o;
    o.rounds = 1;
    o.repeats = 2;
    cli::time_models_on_remote(o, p.proxy.address(), "browser", target);
    REQUIRE(o.threads.size() == 1);
    if (target == "webgl") CHECK(o.threads[0] == 1);
    const std::vector<autotune::Record> preferring = autotune_test::log_preferring_others(tasks, "");
    REQUIRE_FALSE(preferring.empty());
    const autotune::ModelCheck c = autotune::check_in_model(g, target, preferring, o);
    REQUIRE(c.records.size() == preferring.size());  // two per workload, as the log has
    // The page's clock is coarse (microseconds): a 12x12 pool can time 0 there.
    CHECK((c.default_model_ms.at(0) > 0 && c.tuned_model_ms.at(0) > 0));
    for (const autotune::CheckedWorkload &w : c.workloads) {
      INFO(w.name);
      CHECK(w.kernels == 1);
      CHECK((w.default_ms.at(0) >= 0 && w.tuned_ms.at(0) >= 0));
      CHECK(w.default_ms[0] <= c.default_model_ms[0]);
    }
    for (const autotune::Record &r : c.records) CHECK((r.in_model && r.threads == o.threads[0] && r.cpu.empty()));
  }
}
