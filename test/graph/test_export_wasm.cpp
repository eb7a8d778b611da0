// The "wasm" target and WebAssembly packages on the C++ side: modules that refuse to run in
// this process, saved modules and their imports, the package's files. The packages'
// answers are checked by running them under Node and in Chromium (test/web/wasm_test.mjs,
// browser_test.mjs) against the "llvm" build.
#include <tensorir/graph/artifact.h>
#include <tensorir/graph/executor.h>
#include <tensorir/graph/export_web.h>
#include <tensorir/graph/models.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <unistd.h>

#include "runtime/json.h"

using namespace tensorir;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path scratch_dir(const std::string &name) {
  fs::path p = fs::temp_directory_path() / ("tensorir_wasm_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(p);
  return p;
}

// C = A + B on [n], vectorized by 4.
Module vector_add(const Target &target, const std::function<Expr(Expr, Expr)> &f) {
  Tensor A = placeholder({64}, Float(32), "A"), B = placeholder({64}, Float(32), "B");
  Tensor C = compute({64}, [&](Var i) { return f(A(i), B(i)); }, "C");
  Schedule s = create_schedule({C});
  auto [o, i] = s[C].split(C.axis(0), 4);
  s[C].vectorize(i);
  return build(s, {A, B, C}, target, "vadd");
}

graph::Graph small_network() {
  graph::Builder b;
  auto x = b.input("x", {1, 8, 10, 10});
  auto w = b.constant("conv.weight", NDArray::random({16, 8, 3, 3}, Float(32), 5));
  auto y = b.relu(b.conv2d(x, w, {.padding = {1, 1}}, "conv"), "relu");
  return b.finish(b.max_pool2d(y, {2, 2}, {2, 2}, {0, 0}, "pool"));
}

}  // namespace

TEST_CASE("wasm: modules are WebAssembly, not callable in this process", "[wasm]") {
  Module m = vector_add("wasm", [](Expr a, Expr b) { return a + b; });
  REQUIRE(m.node()->backend() == "wasm");
  CHECK_THAT(m.source("asm"), Contains("f32x4.add"));
  CHECK_THAT(m.source("ll"), Contains("wasm32"));
  NDArray a = NDArray::random({64}, Float(32), 1), b = NDArray::random({64}, Float(32), 2);
  NDArray c = NDArray::empty({64}, Float(32));
  CHECK_THROWS_WITH(m("vadd")(a, b, c), Contains("runs in a JavaScript engine"));

  const fs::path dir = scratch_dir("module");
  fs::create_directories(dir);
  m.node()->save((dir / "vadd.wasm").string(), "wasm");
  m.node()->save((dir / "vadd.o").string(), "o");
  const std::string wasm = read_all(dir / "vadd.wasm");
  REQUIRE(wasm.size() > 8);
  CHECK(wasm.compare(0, 4, std::string("\0asm", 4)) == 0);
  CHECK(wasm.find("vadd") != std::string::npos);                  // exported by name
  CHECK(wasm.find("__heap_base") != std::string::npos);           // where the runtime's memory starts
  CHECK(read_all(dir / "vadd.o").compare(0, 4, std::string("\0asm", 4)) == 0);
  CHECK_THROWS_WITH(m.node()->save((dir / "x.so").string(), "so"), Contains("formats: wasm"));
  fs::remove_all(dir);
}

TEST_CASE("wasm: a call the web runtime cannot provide is an error when linking", "[wasm]") {
  // lgammaf has no counterpart among the runtime's imports.
  Module m = vector_add("wasm", [](Expr a, Expr) { return call_extern(Float(32), "lgammaf", {a}); });
  const fs::path dir = scratch_dir("lgamma");
  fs::create_directories(dir);
  CHECK_THROWS_WITH(m.node()->save((dir / "lgamma.wasm").string(), "wasm"),
                    Contains("undefined symbol: lgammaf") && Contains("can call the math functions expf"));
  fs::remove_all(dir);
}

TEST_CASE("wasm: the trigonometric functions and fmod link against the web runtime's imports", "[wasm]") {
  Module m = vector_add("wasm", [](Expr a, Expr b) {
    return sin(a) + cos(b) + tan(a) + asin(a) + acos(b) + atan(a) + sinh(b) + cosh(a) + asinh(b) + acosh(a) +
           atanh(b) + fmod(a, b);
  });
  const fs::path dir = scratch_dir("trig");
  fs::create_directories(dir);
  m.node()->save((dir / "trig.wasm").string(), "wasm");
  CHECK(fs::file_size(dir / "trig.wasm") > 8);
  fs::remove_all(dir);
}

TEST_CASE("wasm: target options", "[wasm][error]") {
  CHECK_THROWS_WITH(vector_add("wasm -mcpu=znver4", [](Expr a, Expr b) { return a + b; }),
                    Contains("unknown option '-mcpu'") && Contains("-mattr"));
  CHECK_THROWS_WITH(vector_add("wasm -mattr=simd128", [](Expr a, Expr b) { return a + b; }),
                    Contains("must start with + or -"));
  CHECK_THROWS_WITH(vector_add("wasm -mattr=+avx2", [](Expr a, Expr b) { return a + b; }),
                    Contains("unknown WebAssembly feature 'avx2'"));
  Module relaxed = vector_add("wasm -mattr=+relaxed-simd", [](Expr a, Expr b) { return a * b; });
  CHECK_THAT(relaxed.source("asm"), Contains("f32x4.mul"));
}

TEST_CASE("wasm: graphs built for wasm export packages and do not run here", "[wasm]") {
  const graph::Graph g = small_network();
  graph::CompiledModel m = graph::build(g, "wasm");
  CHECK_THROWS_WITH(m.run({{"x", NDArray::random({1, 8, 10, 10}, Float(32), 3)}}),
                    Contains("built for 'wasm'") && Contains("run outside this process") &&
                        Contains("graph::export_web"));
  CHECK(m.storage_bytes() == 0);  // nothing is allocated for kernels this process cannot call
  CHECK_THROWS_WITH(m.save(scratch_dir("saved").string()), Contains("only models built for \"llvm\""));

  const fs::path dir = scratch_dir("package");
  graph::WebExportInfo info = graph::export_web(m, dir.string(), {.name = "small"});
  for (const char *f : {"model.json", "model.wasm", "model.threads.wasm", "params.bin", "index.html",
                        "tensorir/tensorir.js", "tensorir/wasm_model.js", "tensorir/wasm_worker.js"})
    CHECK(fs::exists(dir / f));
  const std::string json = read_all(dir / "model.json");
  CHECK_THAT(json, Contains("\"format\": \"tensorir-wasm\"") && Contains("\"name\": \"small\""));
  CHECK_THAT(json, Contains("\"bytes\": " + std::to_string(fs::file_size(dir / "params.bin"))));
  CHECK_THAT(json, Contains("\"bytes\": " + std::to_string(fs::file_size(dir / "model.wasm"))));
  CHECK(info.params_bytes == fs::file_size(dir / "params.bin"));
  // The weights (16x8x3x3 floats, packed at build time) are all there, 64-byte aligned.
  CHECK(info.params_bytes >= 16 * 8 * 3 * 3 * 4);
  CHECK(info.params_bytes % 64 == 0);
  CHECK(info.passes == m.num_kernels());
  // The threaded module imports a shared memory with a maximum (limits flags 3), the other
  // a memory of its own without one (flags 0).
  const std::string memory_import("\x06memory\x02", 8);
  CHECK(read_all(dir / "model.threads.wasm").find(memory_import + '\x03') != std::string::npos);
  CHECK(read_all(dir / "model.wasm").find(memory_import + '\x00') != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("wasm: the package lays results out as the storage plan shares them", "[wasm]") {
  // x -> r1 -> r2 -> r3 -> out, one kernel each: r1 is dead once r2 is written, so r3
  // takes its buffer; out has storage of its own.
  graph::Builder b;
  auto x = b.input("x", {1, 4, 16, 16});
  auto r1 = b.relu(x, "r1");
  auto r2 = b.relu(r1, "r2");
  auto r3 = b.relu(r2, "r3");
  graph::BuildOptions options;
  options.fuse_operators = false;
  graph::CompiledModel m = graph::build(b.finish(b.relu(r3, "out")), "wasm", options);
  const fs::path dir = scratch_dir("layout");
  graph::export_web(m, dir.string(), {.name = "", .copy_runtime = false});
  const json::Value doc = json::parse(read_all(dir / "model.json"));
  std::map<std::string, int64_t> at;  // each kernel's result: the offset of its last argument
  for (const json::Value &k : doc.at("kernels").items()) at[k.at("node").as_string()] = k.at("args").items().back().as_int();
  const int64_t bytes = 4 * 16 * 16 * 4;
  CHECK(at.at("r3") == at.at("r1"));
  CHECK((at.at("r2") >= at.at("r1") + bytes || at.at("r1") >= at.at("r2") + bytes));
  for (const char *shared : {"r1", "r2"})
    CHECK((at.at("out") >= at.at(shared) + bytes || at.at(shared) >= at.at("out") + bytes));
  for (const auto &[name, offset] : at) CHECK(offset % 64 == 0);
  // The input, two shared buffers and the output.
  CHECK(doc.at("memory").at("bytes").as_int() == 4 * bytes);
  fs::remove_all(dir);
}

TEST_CASE("web packages of graphs with several outputs list each output", "[wasm][web]") {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto r = b.relu(x, "r");
  const graph::Graph g = b.finish({b.add(r, x, "sum"), r});
  for (const char *target : {"wasm", "webgl"}) {
    INFO(target);
    const fs::path dir = scratch_dir("two_outputs");
    graph::export_web(graph::build(g, target), dir.string());
    const json::Value doc = json::parse(read_all(dir / "model.json"));
    const json::Value &outs = doc.at("outputs");
    REQUIRE(outs.size() == 2);
    CHECK(outs.items()[0].at("name").as_string() == "sum");
    CHECK(outs.items()[1].at("name").as_string() == "r");
    // Each output has storage of its own: neither is written over by the other.
    const char *where = std::string(target) == "wasm" ? "offset" : "texture";
    CHECK(outs.items()[0].at(where).as_int() != outs.items()[1].at(where).as_int());
    fs::remove_all(dir);
  }
}

TEST_CASE("export_web_index: one package holding the webgl and wasm builds", "[wasm][web]") {
  const graph::Graph g = small_network();
  graph::CompiledModel webgl = graph::build(g, "webgl"), wasm = graph::build(g, "wasm"), llvm = graph::build(g, "llvm");
  const fs::path dir = scratch_dir("index");
  graph::WebExportInfo info = graph::export_web_index({&webgl, &wasm}, dir.string(), {.name = "small"});
  for (const char *f : {"model.json", "index.html", "tensorir/tensorir.js", "tensorir/choose.js", "webgl/model.json",
                        "webgl/params.bin", "wasm/model.json", "wasm/model.wasm", "wasm/params.bin"})
    CHECK(fs::exists(dir / f));
  CHECK(!fs::exists(dir / "webgl" / "tensorir"));  // the runtime once, at the top
  const std::string index = read_all(dir / "model.json");
  CHECK_THAT(index, Contains("\"format\": \"tensorir-index\"") && Contains("\"model\": \"webgl/model.json\"") &&
                        Contains("\"model\": \"wasm/model.json\"") && Contains("\"name\": \"small\""));
  CHECK(info.params_bytes == fs::file_size(dir / "webgl" / "params.bin") + fs::file_size(dir / "wasm" / "params.bin"));

  CHECK_THROWS_WITH(graph::export_web_index({}, dir.string()), Contains("no models"));
  CHECK_THROWS_WITH(graph::export_web_index({&wasm, &wasm}, dir.string()), Contains("two models built for \"wasm\""));
  CHECK_THROWS_WITH(graph::export_web_index({&llvm}, dir.string()), Contains("\"wasm\", \"webgl\""));
  fs::remove_all(dir);
}

TEST_CASE("model_directory_entries names every file a saved model or a package puts at its top", "[wasm][web]") {
  const graph::Graph g = small_network();
  graph::CompiledModel webgl = graph::build(g, "webgl"), wasm = graph::build(g, "wasm"), llvm = graph::build(g, "llvm");
  const fs::path dir = scratch_dir("entries");
  llvm.save((dir / "saved").string());
  graph::export_web(webgl, (dir / "webgl").string());
  graph::export_web(wasm, (dir / "wasm").string());
  graph::export_web_index({&webgl, &wasm}, (dir / "index").string());
  const std::vector<std::string> list = graph::model_directory_entries();
  const std::set<std::string> entries(list.begin(), list.end());
  size_t seen = 0;
  for (const char *d : {"saved", "webgl", "wasm", "index"})
    for (const fs::directory_entry &e : fs::directory_iterator(dir / d)) {
      INFO(d << ": " << e.path().filename().string());
      CHECK(entries.count(e.path().filename().string()) == 1);
      ++seen;
    }
  CHECK(seen >= 15);
  CHECK(entries.count("model.txt") == 1);  // an older saved model's plan
  CHECK(entries.count("rpc.html") == 0);   // served by the proxy, never in a package

  // An earlier model's entries, by its format: each directory's own files are among them,
  // and nothing a model of another kind writes is.
  using Names = std::vector<std::string>;
  const auto earlier = [&](const char *d) { return graph::earlier_model_entries((dir / d).string()); };
  CHECK(earlier("saved") == Names{"model.json", "model.so", "model.txt", "params.bin"});
  CHECK(earlier("webgl") == Names{"index.html", "model.json", "params.bin", "tensorir"});
  CHECK(earlier("wasm") ==
        Names{"index.html", "model.json", "model.threads.wasm", "model.wasm", "params.bin", "tensorir"});
  CHECK(earlier("index") == Names{"index.html", "model.json", "model.threads.wasm", "model.wasm", "params.bin",
                                  "tensorir", "wasm", "webgl"});
  for (const char *d : {"saved", "webgl", "wasm", "index"}) {
    const Names names = earlier(d);
    for (const fs::directory_entry &e : fs::directory_iterator(dir / d)) {
      INFO(d << ": " << e.path().filename().string());
      CHECK(std::count(names.begin(), names.end(), e.path().filename().string()) == 1);
    }
  }
  // A saved model of formats 1 to 3 has only model.txt.
  fs::remove(dir / "saved" / "model.json");
  std::ofstream(dir / "saved" / "model.txt") << "tensorir model 3\n";
  CHECK(earlier("saved") == Names{"model.json", "model.so", "model.txt", "params.bin"});
  // No model of tensorir's: none, whatever else the directory holds.
  for (const char *text : {"{\"app\": 1}", "not json", "[1, 2]", "{\"format\": 3}", "{\"format\": \"tensorir-other\"}"}) {
    INFO(text);
    std::ofstream(dir / "webgl" / "model.json") << text;
    CHECK(earlier("webgl").empty());
  }
  CHECK(earlier("none").empty());
  fs::remove_all(dir);
}
