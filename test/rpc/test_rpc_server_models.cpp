// Saved models through the server's executor: the files CompiledModel::save writes are
// sent, loaded by the runtime, run, profiled and timed; results against
// CompiledModel::run here and a plain loop; and the errors.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/graph.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>

#include "rpc/server/executor.h"
#include "rpc_server_test_util.h"

using namespace tensorir;
using namespace tensorir::rpc_test;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// out = relu(x) + bias, x [2, 8], and a second output y = relu(x).
graph::CompiledModel relu_bias(const NDArray &bias) {
  graph::Builder b;
  auto x = b.input("x", {2, 8});
  auto y = b.relu(x, "y");
  return graph::build(b.finish({b.add(y, b.constant("bias", bias), "out"), y}), "llvm");
}

// The load_model request of the folder `dir`: every file in it.
rpc::Frame load_model_request(int64_t id, int64_t handle, const fs::path &dir) {
  nlohmann::json files = nlohmann::json::array();
  std::string payload;
  for (const fs::directory_entry &e : fs::directory_iterator(dir)) {
    const std::string bytes = file_bytes(e.path().string());
    files.push_back({{"name", e.path().filename().string()}, {"bytes", bytes.size()}});
    payload += bytes;
  }
  return request(id, "load_model", {{"model", handle}, {"format", "saved-model"}, {"files", files}}, payload);
}

}  // namespace

TEST_CASE("rpc server: a saved model runs, profiles and times as it does here", "[rpc][server][model]") {
  const NDArray bias = NDArray::random({2, 8}, Float(32), 1);
  const graph::CompiledModel model = relu_bias(bias);
  ScratchDir dir("model");
  model.save(dir.str("saved"));
  rpc::server::Executor ex = make_executor();
  const nlohmann::json loaded = answer(ex, load_model_request(1, 4, dir.path / "saved"));
  INFO(loaded.dump());
  REQUIRE(loaded["type"] == "reply");
  CHECK(loaded["inputs"] == nlohmann::json::parse(R"([{"name":"x","shape":[2,8],"dtype":"float32"}])"));
  REQUIRE(loaded["outputs"].size() == 2);
  CHECK(loaded["outputs"][0]["name"] == "out");

  const NDArray x = NDArray::random({2, 8}, Float(32), 2);
  const graph::Outputs want = model.run({{"x", x}});
  const nlohmann::json inputs = {{{"name", "x"}, {"bytes", 64}}};
  std::string got;
  const nlohmann::json ran = answer(ex, request(2, "run_model", {{"model", 4}, {"inputs", inputs}}, bytes_of(x)), &got);
  INFO(ran.dump());
  REQUIRE(ran["type"] == "reply");
  REQUIRE(ran["outputs"].size() == 2);
  CHECK(ran["outputs"][0] == nlohmann::json({{"name", "out"}, {"shape", {2, 8}}, {"dtype", "float32"}, {"bytes", 64}}));
  CHECK(ran["outputs"][1]["name"] == "y");
  CHECK(got == bytes_of(want["out"]) + bytes_of(want["y"]));
  // And against a plain loop.
  std::vector<float> out(16);
  std::memcpy(out.data(), got.data(), 64);
  const std::vector<float> xs = x.to_vector<float>(), bs = bias.to_vector<float>();
  for (size_t i = 0; i < 16; ++i) CHECK(out[i] == Approx(std::max(xs[i], 0.0f) + bs[i]));

  const nlohmann::json profiled =
      answer(ex, request(3, "profile_model", {{"model", 4}, {"repeats", 2}, {"inputs", inputs}}, bytes_of(x)));
  INFO(profiled.dump());
  REQUIRE(profiled["type"] == "reply");
  REQUIRE(!profiled["kernels"].empty());
  for (const auto &k : profiled["kernels"]) CHECK(k["ms"].get<double>() >= 0);
  const nlohmann::json timed = answer(
      ex, request(4, "time_model", {{"model", 4}, {"number", 2}, {"repeat", 3}, {"inputs", inputs}}, bytes_of(x)));
  REQUIRE(timed["type"] == "reply");
  CHECK(timed["times_ms"].size() == 3);

  CHECK(answer(ex, request(5, "info"))["info"]["live"]["models"] == 1);
  CHECK_FALSE(ex.handle(request(6, "free_model", {{"model", 4}})).has_value());
  CHECK(answer(ex, request(7, "info"))["info"]["live"]["models"] == 0);
}

TEST_CASE("rpc server: model errors name the model, input or file and the fix", "[rpc][server][model][error]") {
  ScratchDir dir("model_errors");
  relu_bias(NDArray::random({2, 8}, Float(32), 1)).save(dir.str("saved"));
  rpc::server::Executor ex = make_executor();
  const auto message = [&](const rpc::Frame &f) { return error_of(ex, f); };
  rpc::Frame web = load_model_request(1, 4, dir.path / "saved");
  web.header["format"] = "web";
  CHECK_THAT(message(web), Contains("the format 'web' is not loaded by a server"));
  rpc::Frame short_payload = load_model_request(2, 4, dir.path / "saved");
  short_payload.payload.pop_back();
  CHECK_THAT(message(short_payload), Contains("runs past the end of the payload"));
  rpc::Frame escaping = load_model_request(3, 4, dir.path / "saved");
  escaping.header["files"][0]["name"] = "../model.json";
  CHECK_THAT(message(escaping), Contains("'../model.json' is not a plain file name"));
  fs::remove(dir.path / "saved" / "params.bin");
  CHECK_THAT(message(load_model_request(4, 4, dir.path / "saved")), Contains("load_model of model 4") &&
                                                                           Contains("params.bin"));
  CHECK(answer(ex, request(5, "info"))["info"]["live"]["models"] == 0);

  relu_bias(NDArray::random({2, 8}, Float(32), 1)).save(dir.str("saved"));
  REQUIRE(answer(ex, load_model_request(6, 4, dir.path / "saved"))["type"] == "reply");
  CHECK_THAT(message(load_model_request(7, 4, dir.path / "saved")), Contains("model 4 is already in use"));
  const std::string x(64, '\0');
  CHECK_THAT(message(request(8, "run_model", {{"model", 5}, {"inputs", {{{"name", "x"}, {"bytes", 64}}}}}, x)),
             Contains("no model 5") && Contains("load_model it first"));
  CHECK_THAT(message(request(9, "run_model", {{"model", 4}, {"inputs", {{{"name", "z"}, {"bytes", 64}}}}}, x)),
             Contains("the model has no input 'z'; its inputs: x"));
  CHECK_THAT(message(request(10, "run_model", {{"model", 4}, {"inputs", {{{"name", "x"}, {"bytes", 32}}}}},
                             std::string(32, '\0'))),
             Contains("input 'x' has 32 bytes, but float32 [2, 8] takes 64"));
  CHECK_THAT(message(request(11, "run_model", {{"model", 4}, {"inputs", nlohmann::json::array()}})),
             Contains("x"));
  CHECK_THAT(message(request(12, "profile_model", {{"model", 4}, {"repeats", 0}, {"inputs", nlohmann::json::array()}})),
             Contains("\"repeats\" is malformed"));
}
