// graph::export_web and the "webgl" target: packages read back with a JSON reader of this
// file (not the library's), checked for size, checksum, parameter bytes and a storage plan
// that never renders into a texture a pass reads; and webgl models run natively on the
// OpenGL context against the same graphs on llvm.
#include <tensorir/graph/executor.h>
#include <tensorir/graph/export_web.h>
#include <tensorir/graph/models.h>
#include <tensorir/tensorir.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

#include "graph/graph_test_util.h"

using namespace tensorir;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// ------------------------------------------------------------------ a small JSON reader
struct J {
  enum Kind { Null, Bool, Num, Str, Arr, Obj } kind = Null;
  double num = 0;
  bool b = false;
  std::string str;
  std::vector<J> arr;
  std::map<std::string, J> obj;
  const J &operator[](const std::string &k) const {
    auto it = obj.find(k);
    if (it == obj.end()) FAIL("missing member " << k);
    return it->second;
  }
  const J &operator[](size_t i) const {
    REQUIRE(i < arr.size());
    return arr[i];
  }
  bool has(const std::string &k) const { return obj.count(k) != 0; }
  int64_t i() const { return static_cast<int64_t>(num); }
};

struct Reader {
  const std::string &s;
  size_t p = 0;
  void ws() {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  char peek() {
    ws();
    REQUIRE(p < s.size());
    return s[p];
  }
  void want(char c) {
    REQUIRE(peek() == c);
    ++p;
  }
  std::string string() {
    want('"');
    std::string out;
    while (true) {
      REQUIRE(p < s.size());
      char c = s[p++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      char e = s[p++];
      if (e == 'n') out += '\n';
      else if (e == 't') out += '\t';
      else if (e == 'r') out += '\r';
      else if (e == 'u') {
        out += static_cast<char>(std::stoi(s.substr(p, 4), nullptr, 16));
        p += 4;
      } else out += e;  // " \ /
    }
  }
  J value() {
    J v;
    char c = peek();
    if (c == '{') {
      v.kind = J::Obj;
      ++p;
      if (peek() == '}') return ++p, v;
      while (true) {
        std::string k = string();
        want(':');
        v.obj[k] = value();
        if (peek() == ',') {
          ++p;
          continue;
        }
        want('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = J::Arr;
      ++p;
      if (peek() == ']') return ++p, v;
      while (true) {
        v.arr.push_back(value());
        if (peek() == ',') {
          ++p;
          continue;
        }
        want(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = J::Str;
      v.str = string();
      return v;
    }
    for (const char *w : {"true", "false", "null"})
      if (s.compare(p, std::strlen(w), w) == 0) {
        p += std::strlen(w);
        v.kind = w[0] == 'n' ? J::Null : J::Bool;
        v.b = w[0] == 't';
        return v;
      }
    size_t used = 0;
    v.kind = J::Num;
    v.num = std::stod(s.substr(p, 40), &used);
    REQUIRE(used > 0);
    p += used;
    return v;
  }
};

J parse_json(const std::string &text) {
  Reader r{text};
  J v = r.value();
  r.ws();
  REQUIRE(r.p == text.size());
  return v;
}

std::string read_file(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// A fresh directory under the system's temporary one, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string &stem) {
    path = fs::temp_directory_path() / (stem + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

int64_t numel(const J &shape) {
  int64_t n = 1;
  for (const J &d : shape.arr) n *= d.i();
  return n;
}

std::vector<int64_t> ints(const J &a) {
  std::vector<int64_t> v;
  for (const J &d : a.arr) v.push_back(d.i());
  return v;
}

// ------------------------------------------------------------------ graphs
NDArray weights(const std::vector<int64_t> &shape, uint64_t seed) { return NDArray::random(shape, Float(32), seed); }

// conv (stride 2, padding 1) + bias + relu -> pool -> dense + bias -> softmax.
graph::Graph small_net() {
  graph::Builder b;
  auto x = b.input("x", {1, 3, 12, 10});
  auto c = b.conv2d(x, b.constant("conv.weight", weights({6, 3, 3, 3}, 1)), {.strides = {2, 2}, .padding = {1, 1}},
                    "conv");
  auto r = b.relu(b.bias_add(c, b.constant("conv.bias", weights({6}, 2)), 1, "conv.add"), "conv.relu");
  auto f = b.flatten(b.global_avg_pool2d(r, "pool"), "flat");
  auto d = b.bias_add(b.dense(f, b.constant("fc.weight", weights({5, 6}, 3)), "fc"),
                      b.constant("fc.bias", weights({5}, 4)), 1, "fc.add");
  return b.finish(b.softmax(d, -1, "prob"));
}

graph::Graph broadcast_net() {
  graph::Builder b;
  auto x = b.input("x", {2, 8, 5, 7});
  auto h = b.relu(b.add(x, b.constant("bias", weights({2, 8, 5, 7}, 11)), "add"), "relu");
  return b.finish(b.make("multiply", {h, b.constant("scale", weights({8, 1, 1}, 12))}, {}, "scaled"));
}

graph::Graph long_row_net() {
  graph::Builder b;
  auto x = b.input("x", {1, 50001});
  return b.finish(b.relu(b.add(x, b.constant("offset", weights({1, 50001}, 41)), "add"), "relu"));
}

graph::Graph relu_chain(int n) {
  graph::Builder b;
  auto x = b.input("x", {3, 37});
  for (int i = 0; i < n; ++i) x = b.relu(x, "r" + std::to_string(i));
  return b.finish(x);
}

uint32_t fnv1a(const std::string &bytes) {
  uint32_t h = 2166136261u;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

// Every structural promise of the format that the runtime relies on.
void check_package(const fs::path &dir, const graph::Graph &g, const graph::WebExportInfo &info) {
  const J m = parse_json(read_file(dir / "model.json"));
  CHECK(m["format"].str == "tensorir-web");
  // Version 2 when some pass renders into several textures ("outputs"), else 1.
  bool several_outputs = false;
  for (const J &k : m["kernels"].arr)
    for (const J &p : k["passes"].arr) several_outputs = several_outputs || p.has("outputs");
  CHECK(m["version"].i() == (several_outputs ? 2 : 1));
  CHECK(m["target"].str.rfind("webgl", 0) == 0);
  const J &tex = m["textures"];
  REQUIRE(tex.arr.size() == info.textures);
  int64_t largest = 0, bytes = 0;
  for (const J &t : tex.arr) {
    CHECK(t["format"].str == "RGBA32F");
    CHECK(t["width"].i() > 0);
    CHECK(t["height"].i() > 0);
    largest = std::max({largest, t["width"].i(), t["height"].i()});
    bytes += t["width"].i() * t["height"].i() * 16;
  }
  CHECK(m["max_texture_size"].i() == largest);
  CHECK(m["storage"]["peak_bytes"].i() == bytes);
  CHECK(m["storage"]["naive_bytes"].i() >= bytes);
  auto fits = [&](const J &t) {
    REQUIRE(t["texture"].i() >= 0);
    REQUIRE(size_t(t["texture"].i()) < tex.arr.size());
    const J &x = tex[size_t(t["texture"].i())];
    CHECK(numel(t["shape"]) <= x["width"].i() * x["height"].i() * 4);
    CHECK(t["dtype"].str == "float32");
  };
  REQUIRE(m["inputs"].arr.size() == g.input_ids().size());
  for (size_t i = 0; i < g.input_ids().size(); ++i) {
    const graph::Node &n = g.node(g.input_ids()[i]);
    CHECK(m["inputs"][i]["name"].str == n.name);
    CHECK(ints(m["inputs"][i]["shape"]) == n.shape);
    fits(m["inputs"][i]);
  }
  REQUIRE(m["outputs"].arr.size() == 1);
  fits(m["outputs"][0]);

  // params.bin: size, checksum, and each constant's bytes at its offset.
  const std::string params = read_file(dir / "params.bin");
  CHECK(int64_t(params.size()) == m["params"]["bytes"].i());
  char hash[16];
  std::snprintf(hash, sizeof hash, "0x%08x", fnv1a(params));
  CHECK(m["params"]["fnv1a32"].str == hash);
  std::set<int64_t> param_textures;
  int64_t covered = 0;
  for (const J &p : m["params"]["tensors"].arr) {
    fits(p);
    CHECK(param_textures.insert(p["texture"].i()).second);
    const graph::Node *node = nullptr;
    for (const graph::Node &n : g.nodes())
      if (n.name == p["name"].str) node = &n;
    REQUIRE(node != nullptr);
    REQUIRE(node->op == "constant");
    const int64_t off = p["offset"].i();
    CHECK(off % 4 == 0);
    REQUIRE(off + int64_t(node->value.nbytes()) <= int64_t(params.size()));
    CHECK(std::memcmp(params.data() + off, node->value.data(), node->value.nbytes()) == 0);
    covered += int64_t(node->value.nbytes());
  }
  CHECK(covered == int64_t(params.size()));

  // Passes: programs exist, no pass reads the texture it renders into or writes a parameter.
  const size_t programs = m["programs"].arr.size();
  CHECK(programs == info.programs);
  for (const J &p : m["programs"].arr) CHECK(p.str.rfind("#version 300 es", 0) == 0);
  CHECK(m["vertex_shader"].str.find("gl_VertexID") != std::string::npos);
  size_t passes = 0;
  std::set<int64_t> written;
  for (const J &k : m["kernels"].arr) {
    CHECK(!k["fused"].arr.empty());
    for (const J &p : k["passes"].arr) {
      ++passes;
      CHECK(size_t(p["program"].i()) < programs);
      const int64_t out = p["output"].i();
      std::set<int64_t> outs = {out};
      if (p.has("outputs")) {
        REQUIRE(!p["outputs"].arr.empty());
        CHECK(p["outputs"][0].i() == out);
        for (const J &o : p["outputs"].arr) CHECK(outs.insert(o.i()).second == (o.i() != out));
      }
      for (int64_t o : outs) {
        CHECK(!param_textures.count(o));
        written.insert(o);
      }
      for (const J &in : p["inputs"].arr) {
        CHECK(!outs.count(in["texture"].i()));
        CHECK(m["programs"][size_t(p["program"].i())].str.find(in["sampler"].str) != std::string::npos);
      }
    }
  }
  CHECK(passes == info.passes);
  CHECK(written.count(m["outputs"][0]["texture"].i()));
  // The graph section: every node after the passes, with its inputs by name.
  CHECK(m["graph"]["nodes"].arr.size() == g.nodes().size());
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const J &n = m["graph"]["nodes"][i];
    CHECK(n["name"].str == g.nodes()[i].name);
    CHECK(n["op"].str == g.nodes()[i].op);
    CHECK(n["inputs"].arr.size() == g.nodes()[i].inputs.size());
    CHECK(n.has("attrs"));
  }
  // The runtime, when the library embeds it.
  for (const std::string &f : info.files) CHECK(fs::exists(dir / f));
  if (info.runtime_files > 0) {
    CHECK(fs::file_size(dir / "tensorir" / "tensorir.js") > 0);
    CHECK(fs::exists(dir / "index.html"));
    CHECK(!fs::exists(dir / "rpc.html"));  // the RPC proxy's page, not a package's
  }
}

std::vector<float> run_on(const graph::Graph &g, const Target &t, const NDArray &x) {
  const std::string name = g.node(g.input_ids()[0]).name;
  return graph::build(g, t).run({{name, x}}).to_vector<float>();
}

}  // namespace

TEST_CASE("export_web: a small network's package is complete and consistent", "[graph][web]") {
  const graph::Graph g = small_net();
  graph::CompiledModel m = graph::build(g, "webgl");
  TempDir dir("tensorir_web_small");
  graph::WebExportInfo info = graph::export_web(m, (dir.path / "pkg").string(), {.name = "small"});
  CHECK(parse_json(read_file(dir.path / "pkg" / "model.json"))["name"].str == "small");
  CHECK(info.params_bytes == fs::file_size(dir.path / "pkg" / "params.bin"));
  CHECK(info.passes >= m.num_kernels());
  check_package(dir.path / "pkg", m.graph(), info);

  SECTION("exporting again replaces the files") {
    graph::WebExportInfo again = graph::export_web(m, (dir.path / "pkg").string());
    CHECK(again.total_bytes > 0);
    // Without a name the directory names the model.
    CHECK(parse_json(read_file(dir.path / "pkg" / "model.json"))["name"].str == "pkg");
  }
}

TEST_CASE("export_web: textures are shared only between values that do not overlap", "[graph][web]") {
  graph::BuildOptions unfused;
  unfused.fuse_operators = false;
  const graph::Graph g = relu_chain(5);
  graph::CompiledModel m = graph::build(g, "webgl", unfused);
  TempDir dir("tensorir_web_chain");
  graph::WebExportOptions options;
  options.copy_runtime = false;
  graph::WebExportInfo info = graph::export_web(m, dir.path.string(), options);
  check_package(dir.path, m.graph(), info);
  // x, r0..r4 all the same size: a chain needs two textures, taken in turn.
  CHECK(info.textures == 2);
  CHECK(info.naive_bytes == 6 * info.peak_bytes / 2);
  CHECK(info.runtime_files == 0);
  CHECK(!fs::exists(dir.path / "index.html"));
  const J j = parse_json(read_file(dir.path / "model.json"));
  int64_t prev = j["inputs"][0]["texture"].i();
  for (const J &k : j["kernels"].arr) {
    const J &p = k["passes"][0];
    CHECK(p["inputs"][0]["texture"].i() == prev);
    CHECK(p["output"].i() != prev);
    prev = p["output"].i();
  }
  CHECK(j["outputs"][0]["texture"].i() == prev);
}

TEST_CASE("export_web: a convolution's pass renders into several textures, interleaved next", "[graph][web]") {
  // 16 -> 16 channels in blocks of 4 on rows of 11 texels: with -draw-buffers=8 each
  // fragment of the first convolution (whose result stays blocked for the second) computes
  // 8 texels of a row, the last fragment partly past its end.
  graph::Builder b;
  auto x = b.input("x", {1, 16, 9, 11});
  auto w1 = b.constant("w1", NDArray::random({16, 16, 3, 3}, Float(32), 7));
  auto w2 = b.constant("w2", NDArray::random({8, 16, 3, 3}, Float(32), 8));
  auto y = b.relu(b.conv2d(x, w1, {.padding = {1, 1}}, "conv1"), "relu1");
  const graph::Graph g = b.finish(b.relu(b.conv2d(y, w2, {.padding = {1, 1}}, "conv2"), "relu2"));
  graph::CompiledModel m = graph::build(g, "webgl -draw-buffers=8");
  TempDir dir("tensorir_web_phases");
  graph::WebExportOptions options;
  options.copy_runtime = false;
  graph::WebExportInfo info = graph::export_web(m, dir.path.string(), options);
  check_package(dir.path, m.graph(), info);
  const J j = parse_json(read_file(dir.path / "model.json"));
  CHECK(j["version"].i() == 2);
  bool found = false;
  for (const J &k : j["kernels"].arr)
    for (size_t p = 0; p < k["passes"].arr.size(); ++p) {
      const J &pass = k["passes"][p];
      if (!pass.has("outputs")) continue;
      found = true;
      REQUIRE(pass["outputs"].arr.size() == 8);
      // The next pass reads exactly those textures, in order, into the tensor's own.
      REQUIRE(p + 1 < k["passes"].arr.size());
      const J &next = k["passes"][p + 1];
      REQUIRE(next["inputs"].arr.size() == 8);
      for (size_t i = 0; i < 8; ++i) CHECK(next["inputs"][i]["texture"].i() == pass["outputs"][i].i());
    }
  CHECK(found);
}

TEST_CASE("export_web: resnet18 exports without an OpenGL call", "[graph][web][resnet18]") {
  const graph::Graph g = graph::resnet18(0);
  graph::CompiledModel m = graph::build(g, "webgl");
  TempDir dir("tensorir_web_r18");
  graph::WebExportInfo info = graph::export_web(m, dir.path.string(), {.name = "resnet18"});
  check_package(dir.path, m.graph(), info);
  CHECK(info.peak_bytes < info.naive_bytes);
  const J j = parse_json(read_file(dir.path / "model.json"));
  CHECK(ints(j["inputs"][0]["shape"]) == std::vector<int64_t>{1, 3, 224, 224});
  CHECK(ints(j["outputs"][0]["shape"]) == std::vector<int64_t>{1, 1000});
  CHECK(j["max_texture_size"].i() <= 4096);
}

TEST_CASE("export_web: errors name the problem", "[graph][web][error]") {
  const graph::Graph g = relu_chain(1);
  TempDir dir("tensorir_web_errors");
  SECTION("a model built for another target") {
    graph::CompiledModel m = graph::build(g, "llvm");
    CHECK_THROWS_WITH(graph::export_web(m, dir.path.string()), Contains("'llvm'") && Contains("\"webgl\""));
  }
  SECTION("a directory that cannot be made") {
    fs::create_directories(dir.path);
    std::ofstream(dir.path / "file") << "x";
    graph::CompiledModel m = graph::build(g, "webgl");
    CHECK_THROWS_WITH(graph::export_web(m, (dir.path / "file" / "pkg").string()), Contains("cannot create"));
    CHECK_THROWS_WITH(graph::export_web(m, (dir.path / "file").string()), Contains("not a directory"));
  }
  SECTION("a bad texture size") {
    CHECK_THROWS_WITH(graph::build(g, "webgl -max-texture-size=abc"), Contains("-max-texture-size=abc"));
    CHECK_THROWS_WITH(graph::build(long_row_net(), "webgl -max-texture-size=64"), Contains("texels"));
  }
  SECTION("int32 tensors") {
    Tensor a = placeholder({8}, Int(32), "a");
    Tensor b = compute({8}, [&](const std::vector<Var> &i) { return a(i[0]) + 1; }, "b");
    CHECK_THROWS_WITH(build(create_schedule({b}), {a, b}, "webgl", "ints"), Contains("float32"));
  }
}

TEST_CASE("webgl: modules describe their plans as webgl-json", "[graph][web]") {
  Tensor a = placeholder({3, 5}, Float(32), "a");
  Tensor b = compute({3, 5}, [&](const std::vector<Var> &i) { return a(i[0], i[1]) * 2.0f; }, "b");
  Module m = build(create_schedule({b}), {a, b}, "webgl -max-texture-size=16", "twice");
  CHECK(m.node()->backend() == "webgl");
  const J j = parse_json(m.source("webgl-json"));
  REQUIRE(j["functions"].arr.size() == 1);
  const J &f = j["functions"][0];
  CHECK(f["name"].str == "twice");
  CHECK(f["max_texture_size"].i() == 16);
  CHECK(!f["symbolic"].b);
  for (const J &t : f["tensors"].arr) {
    CHECK(t["packed"].b);
    CHECK(t["format"].str == "RGBA32F");
    CHECK(t["width"].i() * t["height"].i() * 4 >= numel(t["shape"]));
  }
  REQUIRE(f["passes"].arr.size() == 1);
  CHECK(f["passes"][0]["source"].str.find("vec4") != std::string::npos);
  CHECK_THROWS_WITH(m.source("ll"), Contains("webgl-json"));
}

#if TENSORIR_WITH_OPENGL
TEST_CASE("webgl: graphs run natively like on llvm", "[graph][web][opengl]") {
  struct Case {
    const char *name;
    graph::Graph g;
    std::string target;
  };
  const std::vector<Case> cases = {
      {"small_net", small_net(), "webgl"},
      {"broadcast", broadcast_net(), "webgl"},
      {"long_row", long_row_net(), "webgl -max-texture-size=128"},
      {"relu_chain", relu_chain(3), "webgl -max-texture-size=8"},
  };
  for (const Case &c : cases) {
    INFO(c.name << " on " << c.target);
    const graph::Node &in = c.g.node(c.g.input_ids()[0]);
    const NDArray x = NDArray::random(in.shape, Float(32), 7);
    const std::vector<float> web = run_on(c.g, c.target, x), cpu = run_on(c.g, "llvm", x);
    CHECK(graph_test::max_rel_error(web, cpu) < 1e-4);
  }
}

TEST_CASE("webgl: resnet18 runs natively like on llvm", "[graph][web][opengl][resnet18]") {
  const graph::Graph g = graph::resnet18(0);
  const NDArray x = NDArray::random({1, 3, 224, 224}, Float(32), 5);
  CHECK(graph_test::max_rel_error(run_on(g, "webgl", x), run_on(g, "llvm", x)) < 1e-4);
}
#endif

TEST_CASE("export_web: outputs that are constants are parameters of the package", "[graph][web]") {
  // As an ONNX import gives for a shape known at import (int64) and an empty result.
  graph::Builder b;
  auto x = b.input("x", {2, 3});
  auto y = b.make("relu", {x}, {}, "y");
  auto dims = b.constant("dims", NDArray::from_vector<int64_t>({10, 8}, {2}));
  auto none = b.constant("none", NDArray::empty({0, 3}, Float(32)));
  const graph::Graph g = b.finish({y, dims, none});
  TempDir dir("tensorir_web_constant_outputs");
  for (const char *target : {"webgl", "wasm"}) {
    INFO(target);
    const fs::path pkg = dir.path / target;
    graph::export_web(graph::build(g, target), pkg.string());
    const J j = parse_json(read_file(pkg / "model.json"));
    const std::string params = read_file(pkg / "params.bin");
    REQUIRE(j["outputs"].arr.size() == 3);
    const std::string where = std::string(target) == "webgl" ? "texture" : "offset";
    // Each constant output names the place of a parameter of its name holding its value:
    // dims as float32 in a texture, as int64 in WebAssembly memory; none with no bytes.
    for (size_t o = 1; o < 3; ++o) {
      const J &out = j["outputs"][o];
      const J *param = nullptr;
      for (const J &p : j["params"]["tensors"].arr)
        if (p["name"].str == out["name"].str) param = &p;
      REQUIRE(param != nullptr);
      CHECK((*param)[where].i() == out[where].i());
      if (o == 2) {
        CHECK(ints(out["shape"]) == std::vector<int64_t>{0, 3});
        CHECK(out["dtype"].str == "float32");
        continue;
      }
      CHECK(out["name"].str == "dims");
      CHECK(out["dtype"].str == "int64");
      const int64_t off = (*param)["offset"].i();
      if (std::string(target) == "webgl") {
        float v[2];
        REQUIRE(off + 8 <= int64_t(params.size()));
        std::memcpy(v, params.data() + off, 8);
        CHECK((v[0] == 10.f && v[1] == 8.f));
      } else {
        int64_t v[2];
        REQUIRE(off + 16 <= int64_t(params.size()));
        std::memcpy(v, params.data() + off, 16);
        CHECK((v[0] == 10 && v[1] == 8));
      }
    }
  }
  // Nothing to run: a model whose only output is a constant.
  graph::Builder c;
  c.input("x", {2});
  const graph::Graph constant_only = c.finish(c.constant("k", NDArray::from_vector<float>({1.f, 2.f}, {2})));
  for (const char *target : {"webgl", "wasm"}) {
    INFO(target);
    CHECK_THROWS_WITH(graph::export_web(graph::build(constant_only, target), (dir.path / "k").string()),
                      Contains("output 'k' is a constant") && Contains("nothing to run"));
  }
}
