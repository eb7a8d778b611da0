// Saving a compiled model (CompiledModel::save) and running it with the runtime loader
// (runtime::load_model), against CompiledModel::run on the same inputs and a plain
// reference; and the errors of damaged or missing files.
#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tensorir/graph/executor.h>
#include <tensorir/graph/models.h>
#include <tensorir/runtime/model_loader.h>
#include <tensorir/tensorir.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "graph/graph_test_util.h"
#include "runtime/cpu_features.h"
#include "runtime/json.h"

using namespace tensorir;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

using graph_test::TempDir;

// x -> relu -> 2x2 max pool (p) -> relu (q) -> add(q, p) + bias: 2 * maxpool2x2(relu(x)) + bias.
graph::Graph pool_chain(const NDArray &bias) {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 16, 16});
  auto a = b.relu(x, "a");
  auto p = b.max_pool2d(a, {2, 2}, {2, 2}, {0, 0}, "p");
  auto q = b.relu(p, "q");
  auto s = b.add(q, p, "s");
  return b.finish(b.add(s, b.constant("bias", bias), "out"));
}

// relu(p) + p + bias with p = maxpool2x2(relu(x)), i.e. 2 * p + bias.
std::vector<float> pool_chain_reference(const std::vector<float> &x, const std::vector<float> &bias) {
  std::vector<float> out = graph_test::double_pooled_relu_reference(x);
  for (size_t o = 0; o < out.size(); ++o) out[o] += bias[o];
  return out;
}

// Two inputs, a tuned conv2d and dense, constants of several shapes.
graph::Graph conv_dense() {
  graph::Builder b;
  auto x = b.input("image in", {1, 3, 10, 10});  // a name that is not an identifier
  auto y = b.input("y", {1, 10});
  ops::Conv2dAttrs attrs;
  attrs.padding = {1, 1};
  auto c = b.conv2d(x, b.constant("w", NDArray::random({8, 3, 3, 3}, Float(32), 1)), attrs, "conv");
  auto r = b.relu(b.bias_add(c, b.constant("cb", NDArray::random({8}, Float(32), 2)), 1, "conv_bias"), "relu");
  auto p = b.max_pool2d(r, {2, 2}, {2, 2}, {0, 0}, "pool");
  auto d = b.dense(b.flatten(p, "flat"), b.constant("fw", NDArray::random({10, 200}, Float(32), 3)), "fc");
  auto o = b.add(b.bias_add(d, b.constant("fb", NDArray::random({10}, Float(32), 4)), 1, "fc_bias"), y, "plus_y");
  return b.finish(b.softmax(o, -1, "prob"));
}

// x -> relu -> add(relu, x) at 1x4xSxS.
graph::Graph relu_add(int64_t size) {
  graph::Builder b;
  auto x = b.input("x", {1, 4, size, size});
  return b.finish(b.add(b.relu(x, "r"), x, "out"));
}

void check_relu_add(const runtime::LoadedModel &loaded, int64_t size, uint64_t seed) {
  const NDArray x = NDArray::random({1, 4, size, size}, Float(32), seed);
  const std::vector<float> xs = x.to_vector<float>(), got = loaded.run({{"x", x}}).to_vector<float>();
  REQUIRE(got.size() == xs.size());
  size_t wrong = 0;
  for (size_t i = 0; i < xs.size(); ++i) wrong += got[i] != std::max(xs[i], 0.0f) + xs[i];
  INFO("size " << size << ": " << wrong << " of " << xs.size() << " elements wrong");
  CHECK(wrong == 0);
}

// The file names in a folder, sorted.
std::vector<std::string> file_names(const fs::path &dir) {
  std::vector<std::string> names;
  for (const auto &e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A value of model.json with another shape.
json::Value with_shape(json::Value v, const std::vector<int64_t> &shape) {
  v.set("shape", json::Value::array_of(shape));
  return v;
}

void truncate_file(const std::string &path, size_t keep) { fs::resize_file(path, keep); }

void patch_byte(const std::string &path, size_t offset, char value) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(std::streamoff(offset));
  f.put(value);
}

std::string read_text(const std::string &path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_text(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

// model.json parsed, and written back after an edit.
json::Value read_plan(const TempDir &dir) { return json::parse(read_text(dir.str("model.json"))); }
void write_plan(const TempDir &dir, const json::Value &plan) { write_text(dir.str("model.json"), plan.dump(1)); }

// A copy of `v` with `member` of its object set to `to`.
json::Value with(json::Value v, const std::string &member, json::Value to) {
  v.set(member, std::move(to));
  return v;
}

// `list` (an array member of `doc`) with item `i` replaced.
json::Value with_item(const json::Value &doc, const std::string &list, size_t i, json::Value item) {
  json::Value items = json::Value::array();
  for (size_t k = 0; k < doc.at(list).size(); ++k) items.push(k == i ? item : doc.at(list).items()[k]);
  return with(doc, list, std::move(items));
}

// `text` with the first `from` in it replaced by `to` (which must be there).
std::string replaced_once(std::string text, const std::string &from, const std::string &to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// FNV-1a 32 of a file, written out here as the JS runtime does (web/runtime/validate.js).
std::string fnv1a32_of(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  uint32_t h = 2166136261u;
  for (int c; (c = f.get()) != EOF;) h = (h ^ uint32_t(c)) * 16777619u;
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", h);
  return buf;
}

}  // namespace

TEST_CASE("save_model: a small graph runs from its saved files", "[graph][save]") {
  const NDArray bias = NDArray::random({1, 4, 8, 8}, Float(32), 5);
  const graph::Graph g = pool_chain(bias);
  graph::BuildOptions options;
  options.fuse_operators = GENERATE(false, true);
  INFO("fuse_operators " << options.fuse_operators);
  graph::CompiledModel m = graph::build(g, "llvm", options);
  TempDir dir("pool");
  m.save(dir.str());
  CHECK(fs::is_regular_file(dir.str("model.so")));
  CHECK(fs::is_regular_file(dir.str("model.json")));
  CHECK(fs::is_regular_file(dir.str("params.bin")));
  CHECK_FALSE(fs::exists(dir.str("model.objects")));
  // The plan names its format and version and checks the other files as web packages do.
  const json::Value plan = read_plan(dir);
  CHECK(plan.at("format").as_string() == "tensorir-saved-model");
  CHECK(plan.at("version").as_int() == 6);
  for (const char *file : {"model.so", "params.bin"}) {
    const json::Value &entry = plan.at(file == std::string("model.so") ? "library" : "params");
    CHECK(entry.at("file").as_string() == file);
    CHECK(entry.at("bytes").as_int() == int64_t(fs::file_size(dir.str(file))));
    CHECK(entry.at("fnv1a32").as_string() == fnv1a32_of(dir.str(file)));
  }
  REQUIRE(plan.at("outputs").size() == 1);
  CHECK(plan.at("outputs").items()[0].at("name").as_string() == "out");

  runtime::LoadedModel loaded = runtime::load_model(dir.str());
  CHECK(loaded.num_kernels() == m.num_kernels());
  REQUIRE(loaded.inputs().size() == 1);
  CHECK(loaded.inputs()[0].name == "x");
  CHECK(loaded.inputs()[0].shape == std::vector<int64_t>{1, 4, 16, 16});
  CHECK(loaded.output_shape() == std::vector<int64_t>{1, 4, 8, 8});
  CHECK(loaded.output_dtype() == Float(32));
  CHECK(loaded.target() == "llvm");
  for (uint64_t seed : {11, 12}) {
    const NDArray x = NDArray::random({1, 4, 16, 16}, Float(32), seed);
    const std::vector<float> got = loaded.run({{"x", x}}).to_vector<float>();
    CHECK(got == m.run({{"x", x}}).to_vector<float>());  // the same machine code: bit for bit
    CHECK(graph_test::max_rel_error(got, pool_chain_reference(x.to_vector<float>(), bias.to_vector<float>())) < 1e-6);
  }
  const auto prof = loaded.profile({{"x", NDArray::random({1, 4, 16, 16}, Float(32), 3)}}, 2);
  const auto jit_prof = m.profile({{"x", NDArray::random({1, 4, 16, 16}, Float(32), 3)}}, 1);
  REQUIRE(prof.size() == jit_prof.size());
  for (size_t i = 0; i < prof.size(); ++i) {
    CHECK(prof[i].node == jit_prof[i].node);
    CHECK(prof[i].op == jit_prof[i].op);
    CHECK(prof[i].fused == jit_prof[i].fused);
    CHECK(prof[i].ms >= 0);
  }
}

TEST_CASE("save_model: a graph with two outputs saves and loads both, by name", "[graph][save]") {
  // pool_chain's result "out", and "a" = relu(x), which the pool also reads.
  const NDArray bias = NDArray::random({1, 4, 8, 8}, Float(32), 5);
  graph::Builder b;
  auto x = b.input("x", {1, 4, 16, 16});
  auto a = b.relu(x, "a");
  auto p = b.max_pool2d(a, {2, 2}, {2, 2}, {0, 0}, "p");
  auto s = b.add(b.relu(p, "q"), p, "s");
  const graph::Graph g = b.finish({b.add(s, b.constant("bias", bias), "out"), a});
  graph::BuildOptions options;
  options.fuse_operators = GENERATE(false, true);
  INFO("fuse_operators " << options.fuse_operators);
  graph::CompiledModel m = graph::build(g, "llvm", options);
  TempDir dir("two_outputs");
  m.save(dir.str());
  const json::Value outputs = read_plan(dir).at("outputs");
  REQUIRE(outputs.size() == 2);
  CHECK(outputs.items()[0].at("name").as_string() == "out");
  CHECK(outputs.items()[1].at("name").as_string() == "a");

  runtime::LoadedModel loaded = runtime::load_model(dir.str());
  REQUIRE(loaded.outputs().size() == 2);
  CHECK(loaded.outputs()[0].name == "out");
  CHECK(loaded.outputs()[0].shape == std::vector<int64_t>{1, 4, 8, 8});
  CHECK(loaded.outputs()[1].name == "a");
  CHECK(loaded.outputs()[1].shape == std::vector<int64_t>{1, 4, 16, 16});
  CHECK(loaded.outputs()[1].dtype == Float(32));
  for (uint64_t seed : {21, 22}) {
    const NDArray xv = NDArray::random({1, 4, 16, 16}, Float(32), seed);
    const std::vector<float> xs = xv.to_vector<float>();
    const std::map<std::string, NDArray> got = loaded.run_all({{"x", xv}});
    const graph::Outputs want = m.run({{"x", xv}});
    REQUIRE(got.size() == 2);
    const std::vector<float> out = got.at("out").to_vector<float>(), relu = got.at("a").to_vector<float>();
    CHECK(out == want["out"].to_vector<float>());  // the same machine code: bit for bit
    CHECK(relu == want["a"].to_vector<float>());
    CHECK(graph_test::max_rel_error(out, pool_chain_reference(xs, bias.to_vector<float>())) < 1e-6);
    std::vector<float> relu_ref(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) relu_ref[i] = std::max(xs[i], 0.0f);
    CHECK(relu == relu_ref);
  }
  const NDArray x1 = NDArray::random({1, 4, 16, 16}, Float(32), 1);
  CHECK_THROWS_WITH(loaded.run({{"x", x1}}), Catch::Contains("this one has 2 ('out', 'a')") &&
                                                Catch::Contains("run_all returns every output by name"));
  CHECK_THROWS_WITH(loaded.output_shape(), Catch::Contains("output_shape needs a model with one output"));
}

TEST_CASE("save_model: two inputs, tuned conv2d and dense, checked kernel calls", "[graph][save]") {
  graph::CompiledModel m = graph::build(conv_dense(), "llvm");
  TempDir dir("conv_dense");
  m.save(dir.str());
  runtime::LoadedModel loaded = runtime::load_model(dir.str("model.json"));  // the plan's path works too
  REQUIRE(loaded.inputs().size() == 2);
  const NDArray x = NDArray::random({1, 3, 10, 10}, Float(32), 7);
  const NDArray y = NDArray::random({1, 10}, Float(32), 8);
  const std::vector<float> got = loaded.run({{"image in", x}, {"y", y}}).to_vector<float>();
  const std::vector<float> want = m.run({{"image in", x}, {"y", y}}).to_vector<float>();
  CHECK(graph_test::max_rel_error(got, want) <= 1e-6);
  CHECK(got == want);

  // Input mistakes are reported by name, as CompiledModel::run does.
  CHECK_THROWS_WITH(loaded.run({{"y", y}}), Catch::Contains("input 'image in'") && Catch::Contains("not given"));
  CHECK_THROWS_WITH(loaded.run({{"image in", x}, {"y", x}}), Catch::Contains("input 'y' must be [1, 10]"));
  CHECK_THROWS_WITH(loaded.run({{"image in", x}, {"y", y}, {"z", y}}), Catch::Contains("no input called 'z'"));

  // The kernels are a Module with checked calls.
  Module mod = loaded.module();
  REQUIRE(mod.function_names().size() == loaded.num_kernels());
  CHECK_THROWS_WITH(mod(mod.function_names()[0]).call({NDArray::empty({2}, Float(32))}),
                    Catch::Contains("expects"));
  CHECK_THROWS_WITH(mod.source("ll"), Catch::Contains("machine code only"));
}

TEST_CASE("save_model: resnet18 from its saved files matches the compiled model", "[graph][save][resnet18]") {
  const auto t0 = Clock::now();
  graph::CompiledModel m = graph::build(graph::resnet18(2024), "llvm");
  const double build_ms = ms_since(t0);
  TempDir dir("resnet18");
  const auto t1 = Clock::now();
  m.save(dir.str());
  const double save_ms = ms_since(t1);
  const auto t2 = Clock::now();
  runtime::LoadedModel loaded = runtime::load_model(dir.str());
  const double load_ms = ms_since(t2);
  CHECK(loaded.num_kernels() == m.num_kernels());
  CHECK(loaded.output_shape() == std::vector<int64_t>{1, 1000});

  const NDArray input = NDArray::random({1, 3, 224, 224}, Float(32), 99);
  const std::vector<float> want = m.run({{"data", input}}).to_vector<float>();
  const std::vector<float> got = loaded.run({{"data", input}}).to_vector<float>();
  const double err = graph_test::max_rel_error(got, want);
  INFO("max |a - b| / max |b| = " << err);
  CHECK(err <= 1e-6);
  CHECK(got == want);
  // Another input, then the first again: the storage is reused between runs.
  CHECK(loaded.run({{"data", NDArray::random({1, 3, 224, 224}, Float(32), 100)}}).to_vector<float>() != got);
  CHECK(loaded.run({{"data", input}}).to_vector<float>() == got);

  auto best_of = [&](auto &&f) {
    double best = 1e30;
    for (int i = 0; i < 3; ++i) {
      const auto t = Clock::now();
      f();
      best = std::min(best, ms_since(t));
    }
    return best;
  };
  const double jit_ms = best_of([&] { m.run({{"data", input}}); });
  const double so_ms = best_of([&] { loaded.run({{"data", input}}); });
  std::printf("resnet18: build %.0f ms, save %.0f ms, model.so %.0f KiB, params.bin %.1f MiB, load %.1f ms, "
              "run %.2f ms (compiled model %.2f ms)\n",
              build_ms, save_ms, double(fs::file_size(dir.str("model.so"))) / 1024,
              double(fs::file_size(dir.str("params.bin"))) / (1 << 20), load_ms, so_ms, jit_ms);
}

TEST_CASE("save_model: the CPU features of model.so are recorded and checked when loading", "[graph][save][error]") {
  // The check itself, with a stand-in CPU: only enabled features it knows to be missing.
  auto fake = [](const std::string &f) { return f == "avx2" ? 1 : f == "avx512f" || f == "fma" ? 0 : -1; };
  CHECK(runtime::missing_cpu_features({"+avx2", "+avx512f", "-fma", "+fma", "+sse9", "+"}, fake) ==
        std::vector<std::string>{"avx512f", "fma"});

  const NDArray bias = NDArray::random({1, 4, 8, 8}, Float(32), 5);
  graph::CompiledModel m = graph::build(pool_chain(bias), "llvm");
  TempDir dir("cpu");
  m.save(dir.str());
  const json::Value plan = read_plan(dir);
  const std::string cpu = plan.at("cpu").at("name").as_string();
  std::vector<std::string> features;
  for (const json::Value &f : plan.at("cpu").at("features").items()) features.push_back(f.as_string());
  const size_t count = features.size();
  CHECK(!cpu.empty());
  CHECK(count > 0);
  // This machine has what its own save uses, so that loads here.
  CHECK(runtime::missing_cpu_features(features).empty());
  const NDArray x = NDArray::random({1, 4, 16, 16}, Float(32), 1);
  CHECK(runtime::load_model(dir.str()).run({{"x", x}}).to_vector<float>() == m.run({{"x", x}}).to_vector<float>());

  // A CPU without one of its enabled features refuses the library before running it.
  std::string dropped;
  for (const std::string &f : features)
    if (f[0] == '+' && runtime::host_has_cpu_feature(f.substr(1)) == 1) dropped = f.substr(1);
#if defined(__x86_64__)
  REQUIRE(!dropped.empty());  // an x86-64 CPU has at least SSE3 and its relatives
#endif
  if (!dropped.empty()) {
    auto older = [&](const std::string &f) { return f == dropped ? 0 : runtime::host_has_cpu_feature(f); };
    CHECK_THROWS_WITH(runtime::load_model(dir.str(), older),
                      Catch::Contains("model.so was compiled for the CPU '" + cpu + "' and may use " + dropped) &&
                          Catch::Contains("which this CPU lacks") && Catch::Contains("-mcpu="));
  }
}

TEST_CASE("save_model: missing and damaged files give clear errors", "[graph][save][error]") {
  const NDArray bias = NDArray::random({1, 4, 8, 8}, Float(32), 5);
  graph::CompiledModel m = graph::build(pool_chain(bias), "llvm");
  TempDir dir("damaged");
  m.save(dir.str());
  const std::string params = dir.str("params.bin");
  const size_t params_size = size_t(fs::file_size(params));
  const std::string text = read_text(dir.str("model.json"));
  const json::Value plan = json::parse(text);
  const NDArray x = NDArray::random({1, 4, 16, 16}, Float(32), 1);
  REQUIRE(runtime::load_model(dir.str()).run({{"x", x}}).to_vector<float>() == m.run({{"x", x}}).to_vector<float>());

  CHECK_THROWS_WITH(runtime::load_model(dir.str("no_such_dir")), Catch::Contains("no saved model at"));

  SECTION("truncated parameters") {
    for (size_t keep : {size_t(0), size_t(10), params_size / 2, params_size - 1}) {
      truncate_file(params, keep);
      INFO("kept " << keep << " bytes");
      CHECK_THROWS_WITH(runtime::load_model(dir.str()),
                        keep < 8 ? Catch::Contains("not a tensorir parameter file") : Catch::Contains("truncated"));
      m.save(dir.str());
    }
  }
  SECTION("corrupt parameters") {
    patch_byte(params, params_size - 20, 0x7f);  // inside the bias data
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("checksum does not match"));
  }
  SECTION("another parameter format version") {
    patch_byte(params, 8, 9);
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("format version 9"));
  }
  SECTION("another plan format version") {
    write_plan(dir, with(plan, "version", 7));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("format version 7"));
  }
  SECTION("a plan of an older tensorir's line format") {
    // Format 3 wrote model.txt, one record per line.
    fs::remove(dir.str("model.json"));
    write_text(dir.str("model.txt"), "tensorir-model 3\ntarget llvm\n");
    for (const std::string &path : {dir.str(), dir.str("model.txt")})
      CHECK_THROWS_WITH(runtime::load_model(path),
                        Catch::Contains("model.txt was saved by an older tensorir (format 3); save the model again"));
    m.save(dir.str());  // saving again replaces it
    CHECK(file_names(dir.path) == std::vector<std::string>{"model.json", "model.so", "params.bin"});
    CHECK(runtime::load_model(dir.str()).run({{"x", x}}).to_vector<float>() == m.run({{"x", x}}).to_vector<float>());
  }
  SECTION("a plan of an older version in JSON") {
    write_plan(dir, with(plan, "version", 3));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("older tensorir (format 3)"));
    // Format 4's model.so exported every kernel by name, and had no kernel table.
    write_plan(dir, with(plan, "version", 4));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("older tensorir (format 4)"));
  }
  SECTION("a plan of another format") {
    write_plan(dir, with(plan, "format", "tensorir-wasm"));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()),
                      Catch::Contains("not a tensorir saved model") && Catch::Contains("\"tensorir-wasm\""));
  }
  SECTION("a truncated plan") {
    write_text(dir.str("model.json"), text.substr(0, text.size() / 2));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("model.json is not a valid model plan"));
  }
  SECTION("a plan with a number beyond a double's range") {
    write_text(dir.str("model.json"), replaced_once(text, "\"version\": 6", "\"version\": 1e400"));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("model.json is not a valid model plan") &&
                                                          Catch::Contains("1e400 is beyond the range of a double"));
  }
  SECTION("a plan with an element type no array holds") {
    write_text(dir.str("model.json"), replaced_once(text, "\"dtype\": \"float32\"", "\"dtype\": \"float8\""));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("model.json") &&
                                                          Catch::Contains("no array holds elements of type float8"));
  }
  SECTION("a plan without a member") {
    json::Value cut = json::Value::object();
    for (const auto &[key, v] : plan.members())
      if (key != "kernels") cut.set(key, v);
    write_plan(dir, cut);
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("the member \"kernels\" is missing"));
  }
  SECTION("a missing library") {
    fs::remove(dir.str("model.so"));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("cannot load the kernel library"));
  }
  SECTION("a missing parameter file") {
    fs::remove(params);
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("cannot open the parameter file"));
  }
  SECTION("a plan that names a kernel the library lacks") {
    const json::Value &k0 = plan.at("kernels").items()[0];
    write_plan(dir, with_item(plan, "kernels", 0, with(k0, "name", "zz" + k0.at("name").as_string())));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("has no function 'zz"));
  }
  SECTION("a parameter file that is a folder") {
    fs::remove(params);
    fs::create_directory(params);
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("params.bin: it is not a regular file"));
  }
  SECTION("a buffer too large to be real") {
    write_plan(dir, with_item(plan, "buffers", 0, int64_t(999999999999999)));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()),
                      Catch::Contains("buffers[0]: '999999999999999' is not an integer in [0, 1099511627776]"));
  }
  SECTION("a buffer larger than its values need is refused before anything is allocated") {
    // 16 GiB: allocating (and zeroing) it would take the machine's memory.
    write_plan(dir, with_item(plan, "buffers", 0, int64_t(1) << 34));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()),
                      Catch::Contains("buffers[0]: 17179869184 bytes, but the values placed in it need"));
  }
  SECTION("a shape whose size overflows") {
    // [2^40, 2^24] float32 is 2^66 bytes: 0 when the product wraps, which would fit anywhere.
    size_t i = 0;
    while (plan.at("values").items()[i].at("kind").as_string() != "buffer") ++i;
    const json::Value big = with_shape(plan.at("values").items()[i], {int64_t(1) << 40, int64_t(1) << 24});
    write_plan(dir, with_item(plan, "values", i, big));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("is too large"));
  }
  SECTION("a value outside its buffer") {
    size_t i = 0;
    while (plan.at("values").items()[i].at("kind").as_string() != "buffer") ++i;
    const json::Value &v = plan.at("values").items()[i];
    const int64_t size = plan.at("buffers").items()[size_t(v.at("buffer").as_int())].as_int();
    write_plan(dir, with_item(plan, "values", i, with(v, "offset", size)));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("does not fit in buffer"));
    write_plan(dir, with_item(plan, "values", i, with(v, "offset", 32)));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("32 is not 64-byte aligned"));
  }
  SECTION("a checksum that is not one") {
    write_plan(dir, with(plan, "params", with(plan.at("params"), "fnv1a32", "1234")));
    CHECK_THROWS_WITH(runtime::load_model(dir.str()), Catch::Contains("params.fnv1a32: \"1234\" is not a checksum"));
  }
  SECTION("saving into a path that is a file") {
    CHECK_THROWS_WITH(m.save(params), Catch::Contains("cannot create the directory"));
  }
}

TEST_CASE("save_model: saving again into a folder whose model is loaded", "[graph][save]") {
  TempDir dir("resave");
  graph::build(relu_add(16), "llvm").save(dir.str());
  runtime::LoadedModel small = runtime::load_model(dir.str());
  check_relu_add(small, 16, 1);
  graph::build(relu_add(128), "llvm").save(dir.str());
  runtime::LoadedModel large = runtime::load_model(dir.str());  // the new kernels, not the open ones
  CHECK(large.output_shape() == std::vector<int64_t>{1, 4, 128, 128});
  check_relu_add(large, 128, 2);
  check_relu_add(small, 16, 3);  // the first model still runs its own kernels
  CHECK(file_names(dir.path) == std::vector<std::string>{"model.json", "model.so", "params.bin"});
}

TEST_CASE("save_model: files of different saves are refused", "[graph][save][error]") {
  TempDir a("mix_a"), b("mix_b");
  graph::build(relu_add(16), "llvm").save(a.str());
  graph::build(relu_add(32), "llvm").save(b.str());
  fs::copy_file(b.str("model.so"), a.str("model.so"), fs::copy_options::overwrite_existing);
  CHECK_THROWS_WITH(runtime::load_model(a.str()),
                    Catch::Contains("model.so does not belong to this model.json (saved separately?)"));

  TempDir c("mix_c"), d("mix_d");
  graph::build(pool_chain(NDArray::random({1, 4, 8, 8}, Float(32), 5)), "llvm").save(c.str());
  graph::build(pool_chain(NDArray::random({1, 4, 8, 8}, Float(32), 6)), "llvm").save(d.str());
  fs::copy_file(d.str("params.bin"), c.str("params.bin"), fs::copy_options::overwrite_existing);
  CHECK_THROWS_WITH(runtime::load_model(c.str()),
                    Catch::Contains("params.bin does not belong to this model.json (saved separately?)"));
  fs::copy_file(c.str("model.so"), d.str("model.so"), fs::copy_options::overwrite_existing);
  // model.so carries its plan's fingerprint, which covers params.bin's entry: the library
  // of a save with other weights does not belong here either.
  CHECK_THROWS_WITH(runtime::load_model(d.str()), Catch::Contains("model.so does not belong to this model.json"));
}

TEST_CASE("save_model: an object file that cannot be written is an error, not an exit", "[graph][save][error]") {
  Tensor a = placeholder({64}, Float(32), "a");
  Tensor b = compute({64}, [&](Var i) { return tanh(a(i)) * 3.0f; }, "b");
  Module mod = build(create_schedule({b}), {a, b}, "llvm", "tanh3");
  TempDir dir("write_error");
  fs::create_directories(dir.path);
  const std::string path = dir.str("tanh3.o");
  // In a child limited to 256-byte files: writing the object fails with EFBIG.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{256, 256};
    setrlimit(RLIMIT_FSIZE, &limit);
    try {
      mod.node()->save(path, "o");
    } catch (const Error &e) {
      _exit(std::string(e.what()).find("cannot write the object file") != std::string::npos ? 0 : 2);
    } catch (...) {
      _exit(3);
    }
    _exit(4);  // written in spite of the limit
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

namespace {
extern "C" float tir_save_test_twice(float x) { return 2 * x; }
}  // namespace

TEST_CASE("save_model: llvm modules save as objects and shared libraries", "[graph][save]") {
  Tensor a = placeholder({64}, Float(32), "a");
  Tensor b = compute({64}, [&](Var i) { return tanh(a(i)) * 3.0f; }, "b");
  Module mod = build(create_schedule({b}), {a, b}, "llvm", "tanh3");
  TempDir dir("module");
  fs::create_directories(dir.path);
  mod.node()->save(dir.str("tanh3.o"), "o");
  std::ifstream obj(dir.str("tanh3.o"), std::ios::binary);
  char magic[4] = {};
  obj.read(magic, 4);
  CHECK(std::string(magic, 4) == "\x7f" "ELF");

  mod.node()->save(dir.str("tanh3.so"), "so");
  void *h = dlopen(dir.str("tanh3.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(h != nullptr);
  auto fn = reinterpret_cast<RawFunction>(dlsym(h, "tanh3"));
  REQUIRE(fn != nullptr);
  const NDArray x = NDArray::random({64}, Float(32), 3);
  NDArray out = NDArray::empty({64}, Float(32));
  ArgValue args[2];
  args[0].ptr = x.data();
  args[1].ptr = out.data();
  CHECK(fn(args) == 0);
  const std::vector<float> xs = x.to_vector<float>(), got = out.to_vector<float>();
  for (size_t i = 0; i < xs.size(); ++i) CHECK(got[i] == Approx(std::tanh(xs[i]) * 3.0f).epsilon(1e-6));
  dlclose(h);

  CHECK_THROWS_WITH(mod.node()->save(dir.str("x.bc"), "bc"), Catch::Contains("formats: o"));

  register_extern_function("tir_save_test_twice", reinterpret_cast<void *>(&tir_save_test_twice));
  Tensor c = compute({8}, [&](Var i) { return call_extern(Float(32), "tir_save_test_twice", {a(i)}); }, "c");
  Module ext = build(create_schedule({c}), {a, c}, "llvm", "twice");
  CHECK_THROWS_WITH(ext.node()->save(dir.str("twice.so"), "so"), Catch::Contains("'tir_save_test_twice'") &&
                                                                      Catch::Contains("register_extern_function"));
}

#if TENSORIR_WITH_OPENGL
TEST_CASE("save_model: models for opengl cannot be saved, and modules only as gpu-json", "[graph][save][opengl]") {
  const NDArray bias = NDArray::random({1, 4, 8, 8}, Float(32), 5);
  graph::CompiledModel m = graph::build(pool_chain(bias), "opengl");
  TempDir dir("opengl");
  CHECK_THROWS_WITH(m.save(dir.str()), Catch::Contains("only models built for \"llvm\" can be saved"));
  Tensor a = placeholder({64}, Float(32), "a");
  Tensor b = compute({64}, [&](Var i) { return a(i) * 2.0f; }, "b");
  Module mod = build(create_schedule({b}), {a, b}, "opengl", "twice");
  CHECK_THROWS_WITH(mod.node()->save(dir.str("x.so"), "so"), Catch::Contains("opengl backend saves its modules as \"gpu-json\""));
}
#endif

namespace {

// The dtype and shape of each argument of plan kernel `k`, as the plan gives them.
std::vector<std::string> kernel_arg_types(const json::Value &plan, size_t k) {
  std::vector<std::string> types;
  for (const json::Value &a : plan.at("kernels").items()[k].at("args").items()) {
    const json::Value &v = plan.at("values").items()[size_t(a.as_int())];
    json::Value t = json::Value::array();
    t.push(v.at("dtype"));
    t.push(v.at("shape"));
    types.push_back(t.dump());
  }
  return types;
}

// The index of the value called `name` in the plan.
int64_t value_index(const json::Value &plan, const std::string &name) {
  const auto &values = plan.at("values").items();
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].at("name").as_string() == name) return int64_t(i);
  FAIL("the plan has no value '" << name << "'");
  return -1;
}

// The index of the kernel that writes the value called `name`.
size_t writer_of(const json::Value &plan, const std::string &name) {
  const int64_t v = value_index(plan, name);
  const auto &kernels = plan.at("kernels").items();
  for (size_t k = 0; k < kernels.size(); ++k)
    if (kernels[k].at("args").items().back().as_int() == v) return k;
  FAIL("no kernel writes '" << name << "'");
  return 0;
}

// Plan kernel `k` with argument `a` set to value `to` (a < 0: counts from the end).
json::Value with_arg(const json::Value &plan, size_t k, int a, int64_t to) {
  const json::Value &kernel = plan.at("kernels").items()[k];
  std::vector<int64_t> args;
  for (const json::Value &x : kernel.at("args").items()) args.push_back(x.as_int());
  args[size_t(a < 0 ? int(args.size()) + a : a)] = to;
  return with_item(plan, "kernels", k, with(kernel, "args", json::Value::array_of(args)));
}

}  // namespace

TEST_CASE("save_model: an edited plan is refused before any kernel runs", "[graph][save][error]") {
  // Unfused, so that values share buffers: x -> a (relu) -> p (pool) -> q (relu) -> s = q + p -> out = s + bias.
  const NDArray bias = NDArray::random({1, 4, 8, 8}, Float(32), 5);
  graph::BuildOptions options;
  options.fuse_operators = false;
  graph::CompiledModel m = graph::build(pool_chain(bias), "llvm", options);
  TempDir dir("edited");
  m.save(dir.str());
  const json::Value plan = read_plan(dir);
  const NDArray x = NDArray::random({1, 4, 16, 16}, Float(32), 1);
  const std::vector<float> want = m.run({{"x", x}}).to_vector<float>();
  REQUIRE(graph_test::max_rel_error(want, pool_chain_reference(x.to_vector<float>(), bias.to_vector<float>())) < 1e-6);
  // Each edit goes to a copy of the plan next to the saved files; load_model takes its path.
  const std::string edited = dir.str("edited.json");
  const auto load = [&](const json::Value &p) {
    write_text(edited, p.dump(1));
    return runtime::load_model(edited);
  };
  const size_t ka = writer_of(plan, "a"), kp = writer_of(plan, "p"), kq = writer_of(plan, "q"),
               ks = writer_of(plan, "s");
  const json::Value &kernel_a = plan.at("kernels").items()[ka];

  SECTION("a kernel renamed to a function of libc") {
    for (const char *name : {"abort", "free", "exit", "malloc", "tensorir_model_kernels"}) {
      INFO(name);
      CHECK_THROWS_WITH(load(with_item(plan, "kernels", ka, with(kernel_a, "name", name))),
                        Catch::Contains("has no function '" + std::string(name) + "' in its kernel table"));
    }
  }
  SECTION("a kernel renamed to another kernel with other arguments") {
    // relu a is [1, 4, 16, 16] -> [1, 4, 16, 16]; relu q is [1, 4, 8, 8] -> [1, 4, 8, 8]; add s has 3 arguments.
    REQUIRE(kernel_arg_types(plan, ka) != kernel_arg_types(plan, kq));
    const json::Value &kernel_q = plan.at("kernels").items()[kq];
    CHECK_THROWS_WITH(load(with_item(plan, "kernels", ka, with(kernel_a, "name", kernel_q.at("name")))),
                      Catch::Contains("kernels[" + std::to_string(ka) + "]") &&
                          Catch::Contains("argument 0 is 'x' (value 0, float32 [1, 4, 16, 16]), but the kernel "
                                          "was compiled for float32 [1, 4, 8, 8]"));
    const json::Value &kernel_s = plan.at("kernels").items()[ks];
    CHECK_THROWS_WITH(load(with_item(plan, "kernels", ka, with(kernel_a, "name", kernel_s.at("name")))),
                      Catch::Contains("is given 2 arguments, but the kernel in") && Catch::Contains("takes 3"));
  }
  SECTION("an input's shape shrunk") {
    const json::Value small = with_shape(plan.at("values").items()[0], {1, 4, 8, 8});
    CHECK_THROWS_WITH(load(with_item(plan, "values", 0, small)),
                      Catch::Contains("argument 0 is 'x' (value 0, float32 [1, 4, 8, 8]), but the kernel was "
                                      "compiled for float32 [1, 4, 16, 16]"));
  }
  SECTION("a kernel's argument pointed at another value") {
    // Another shape.
    CHECK_THROWS_WITH(load(with_arg(plan, kq, 0, value_index(plan, "a"))),
                      Catch::Contains("argument 0 is 'a'") && Catch::Contains("compiled for float32 [1, 4, 8, 8]"));
    // The same shape, not computed yet: s reads itself, q reads s.
    CHECK_THROWS_WITH(load(with_arg(plan, ks, 0, value_index(plan, "s"))),
                      Catch::Contains("reads 's' (value") && Catch::Contains("before any kernel computes it"));
    CHECK_THROWS_WITH(load(with_arg(plan, kq, 0, value_index(plan, "s"))),
                      Catch::Contains("before any kernel computes it"));
    // A kernel's result moved: p is then never computed (and q may share a's storage), or
    // a is written as 'out'.
    CHECK_THROWS_WITH(load(with_arg(plan, kp, -1, value_index(plan, "q"))),
                      Catch::Contains("writes 'q' over 'a', which it reads") ||
                          (Catch::Contains("reads 'p' (value") && Catch::Contains("before any kernel computes it")));
    CHECK_THROWS_WITH(load(with_arg(plan, ka, -1, value_index(plan, "out"))),
                      Catch::Contains("argument 1 is 'out'") && Catch::Contains("compiled for float32 [1, 4, 16, 16]"));
    CHECK_THROWS_WITH(load(with_arg(plan, ka, -1, 0)), Catch::Contains("writes 'x', which is not a buffer"));
  }
  SECTION("every buffer set to 64 bytes") {
    json::Value small = json::Value::array();
    for (size_t b = 0; b < plan.at("buffers").size(); ++b) small.push(64);
    CHECK_THROWS_WITH(load(with(plan, "buffers", small)),
                      Catch::Contains("does not fit in buffer") && Catch::Contains("of 64 bytes"));
  }
  SECTION("an output pointed at another value") {
    const json::Value &out = plan.at("outputs").items()[0];
    CHECK_THROWS_WITH(load(with_item(plan, "outputs", 0, with(out, "value", value_index(plan, "q")))),
                      Catch::Contains("output 'out' names value") && Catch::Contains("which is 'q'"));
    // Renamed too: a is refused once a later kernel has written over it; if not, the plan's
    // fingerprint in model.so refuses an edit that would return relu(x) as the output.
    json::Value to_a = with(with(out, "value", value_index(plan, "a")), "name", "a");
    CHECK_THROWS_WITH(load(with_item(plan, "outputs", 0, to_a)),
                      (Catch::Contains("output 'a' reads 'a'") && Catch::Contains("has since written")) ||
                          Catch::Contains("edited.json is not the plan saved with"));
  }
  SECTION("a well-formed edit: an output renamed") {
    const json::Value &out = plan.at("outputs").items()[0];
    json::Value values = json::Value::array();
    for (const json::Value &v : plan.at("values").items())
      values.push(v.at("name").as_string() == "out" ? with(v, "name", "result") : v);
    CHECK_THROWS_WITH(load(with_item(with(plan, "values", values), "outputs", 0, with(out, "name", "result"))),
                      Catch::Contains("is not the plan saved with") && Catch::Contains("model.so"));
  }
  // Every refusal left the process running, and the saved model itself loads and runs.
  CHECK(runtime::load_model(dir.str()).run({{"x", x}}).to_vector<float>() == want);
}

TEST_CASE("save_model: model.so exports its kernel table alone", "[graph][save][error]") {
  TempDir dir("exports");
  graph::build(relu_add(16), "llvm").save(dir.str());
  const json::Value plan = read_plan(dir);
  void *h = dlopen(dir.str("model.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(h != nullptr);
  CHECK(dlsym(h, "tensorir_model_kernels") != nullptr);
  for (const json::Value &k : plan.at("kernels").items()) {
    INFO(k.at("name").as_string());
    CHECK(dlsym(h, k.at("name").as_string().c_str()) == nullptr);
  }
  dlclose(h);

  // A library without the table, as a Module saves one, under the plan's checksum.
  Tensor a = placeholder({64}, Float(32), "a");
  Tensor b = compute({64}, [&](Var i) { return a(i) * 2.0f; }, "b");
  build(create_schedule({b}), {a, b}, "llvm", "twice").node()->save(dir.str("model.so"), "so");
  json::Value library = plan.at("library");
  library.set("bytes", int64_t(fs::file_size(dir.str("model.so"))));
  library.set("fnv1a32", fnv1a32_of(dir.str("model.so")));
  write_plan(dir, with(plan, "library", library));
  CHECK_THROWS_WITH(runtime::load_model(dir.str()),
                    Catch::Contains("model.so has no kernel table (tensorir_model_kernels)") &&
                        Catch::Contains("save the model again"));
}
