// `tensorir tune --rpc`: a model's tasks measured on `tensorir rpc server` (a child
// process), each candidate checked against the template's fallback there; the records
// reach the log and read back.
#include <tensorir/autotune.h>

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

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
  const std::vector<autotune::Record> records = autotune::read_log(log);
  REQUIRE(records.size() >= 4);
  for (const autotune::Record &r : records) {
    INFO(r.error);
    REQUIRE(r.error.empty());
    REQUIRE(r.times_ms.size() == 3);
    REQUIRE(r.cpu.empty());  // the remote's CPU is not known here
  }
  std::filesystem::remove(log);

  out.clear();
  REQUIRE(run_cli(std::string("tune ") + kModel + " --target llvm --trials 2 --rpc " + server.address() +
                      " -o " + log, out) == 2);
  REQUIRE_THAT(out, Catch::Contains("needs --key K"));
}
