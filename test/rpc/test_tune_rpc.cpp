// `tensorir tune --rpc`: a model's tasks measured on `tensorir rpc server` (a child
// process), each candidate checked against the template's fallback there; the records
// reach the log and read back, and the log is checked in the model on the server.
#include <tensorir/autotune.h>

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "autotune/log_test_util.h"
#include "rpc/rpc_test_util.h"
#include "rpc_model_check.h"
#include "rpc_server_process.h"

using namespace tensorir;
using namespace tensorir::rpc_test;

namespace {

// Runs `tensorir ARGS` to its end: its exit status, its stdout and stderr in `output`.
int run_cli(const std::string &args, std::string &output) {
  FILE *p = popen((std::string(TENSORIR_CLI) + " " + args + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) output.append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char *kModel = "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx";

}  // namespace

TEST_CASE("tensorir tune --rpc measures on the server", "[rpc][server][process][autotune]") {
  REQUIRE(std::filesystem::exists(kModel));  // Debian libonnx-testdata
  ServerProcess server{{"--port", "0", "--key", "tuning"}};
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("tir_tune_rpc_" + std::to_string(getpid()) + ".log")).string();
  std::filesystem::remove(log);
  std::string out;
  const int rc = run_cli(std::string("tune ") + kModel + " --target llvm --trials 4 --batch 2 --check --rpc " +
                             server.address() + " --key tuning -o " + log,
                         out);
  INFO(out);
  REQUIRE(rc == 0);
  REQUIRE_THAT(out, Catch::Contains("measured on " + server.address()));
  // The search's best are checked in the model there, unless they are all the defaults.
  const bool checked = out.find("in the model on the remote, on ") != std::string::npos;
  CHECK((checked || out.find("nothing to check in the model") != std::string::npos));
  const std::vector<autotune::Record> records = autotune::read_log(log);
  REQUIRE(records.size() >= 4);
  for (const autotune::Record &r : records) {
    INFO(r.error);
    REQUIRE(r.error.empty());
    REQUIRE(r.times_ms.size() == (r.in_model ? 5u : 3u));  // a check's records: a time per round
    REQUIRE(r.cpu.empty());  // the remote's CPU is not known here
    if (r.in_model) CHECK(checked);
  }
  std::filesystem::remove(log);

  out.clear();
  REQUIRE(run_cli(std::string("tune ") + kModel + " --target llvm --trials 2 --rpc " + server.address() +
                      " -o " + log, out) == 2);
  REQUIRE_THAT(out, Catch::Contains("needs --key K"));

  // Kernels of a target whose models do not go to a remote are tuned there all the same.
  out.clear();
  REQUIRE(run_cli(std::string("tune ") + kModel + " --target opencl --trials 2 --batch 2 --rpc " + server.address() +
                      " --key tuning -o " + log, out) == 0);
  CHECK_THAT(out, Catch::Contains("will not be checked in the model: models built for opencl cannot be loaded"));
  CHECK(autotune::read_log(log).size() >= 2);
  std::filesystem::remove(log);
}

TEST_CASE("a log checked in the model on the server: records at the server's thread count",
          "[rpc][server][process][autotune][model_check]") {
  ServerProcess server{{"--port", "0", "--key", "check"}};
  const graph::Graph g = small_convnet(12, 8, 6);
  const std::vector<autotune::Task> tasks = autotune::extract_tasks(g, "llvm");
  const auto tunable = std::count_if(tasks.begin(), tasks.end(), [](const autotune::Task &t) { return t.space_size() > 1; });
  REQUIRE(tunable >= 1);
  autotune::ModelCheckOptions o;
  o.rounds = 2;
  o.repeats = 3;
  cli::time_models_on_remote(o, server.address(), "check", "llvm");
  REQUIRE(o.threads.size() == 1);
  CHECK(o.threads[0] >= 1);
  const autotune::ModelCheck c = autotune::check_in_model(g, "llvm", autotune_test::log_preferring_others(tasks, ""), o);
  REQUIRE(c.workloads.size() == size_t(tunable));
  REQUIRE(c.records.size() == 2 * size_t(tunable));
  for (const autotune::CheckedWorkload &w : c.workloads) {
    INFO(w.name);
    CHECK(w.kernels == 1);
    CHECK((w.default_ms.at(0) > 0 && w.tuned_ms.at(0) > 0));
    CHECK(w.default_ms[0] < c.default_model_ms.at(0));
  }
  for (const autotune::Record &r : c.records) CHECK((r.in_model && r.threads == o.threads[0] && r.cpu.empty()));

  // A model that cannot go to a remote, or a remote without the target's device.
  autotune::ModelCheckOptions other;
  CHECK_THROWS_WITH(cli::time_models_on_remote(other, server.address(), "check", "opengl"),
                    Catch::Contains("cannot be loaded on a remote"));
  CHECK_THROWS_WITH(cli::time_models_on_remote(other, server.address(), "check", "wasm"),
                    Catch::Contains("has no wasm device: models built for wasm cannot run there"));
}
