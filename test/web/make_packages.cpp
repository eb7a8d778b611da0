// Writes the web packages the browser tests run: resnet18 and small graphs that cover
// element-wise operators with broadcasting, reductions, dense, a strided padded conv2d,
// convolutions in channel blocks with eight render targets per pass, a tensor spread
// over many texture rows, and an operator registered by this program. Next to each package's model.json:
//   test_input.bin     the single input, raw float32 (NDArray::random, seeded)
//   test_expected.bin  the (last) output of the same graph built for "llvm", raw float32
//   test.json          {"input", "output", "tolerance", "description"}
//
//   tensorir_web_packages [--target wasm|webgl+wasm] OUT_DIR [NAME...]    (no names: every package)
//   tensorir_web_packages --demo OUT_DIR
//
// With --target wasm the same graphs are built for "wasm" instead of "webgl"; with
// webgl+wasm for both, in one package whose model.json indexes the two builds
// (graph::export_web_index).
//
// --demo writes OUT_DIR/masked_lookup, a package with both builds of a graph taking a
// float32, a bool and an int64 input and giving float32, int64 and bool outputs (two of them constants), for
// the demo page's test: demo_expected.json holds its outputs for the page's seeded random
// inputs (input i: NDArray::random(shape, dtype, 1 + i), which web/runtime/model_base.js
// draws too).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tensorir/error.h"
#include "tensorir/graph/executor.h"
#include "tensorir/graph/export_web.h"
#include "tensorir/graph/models.h"
#include "tensorir/graph/op_registry.h"

using namespace tensorir;
namespace fs = std::filesystem;

namespace {

struct Package {
  std::string name;
  std::string description;
  std::string target;  // the webgl target, with its options
  std::function<graph::Graph()> make;
};

NDArray weights(const std::vector<int64_t> &shape, uint64_t seed) { return NDArray::random(shape, Float(32), seed); }

graph::Graph elementwise() {
  graph::Builder b;
  auto x = b.input("x", {2, 8, 5, 7});
  auto bias = b.constant("bias", weights({2, 8, 5, 7}, 11));
  auto scale = b.constant("scale", weights({8, 1, 1}, 12));
  auto h = b.relu(b.add(x, bias, "add"), "relu");
  return b.finish(b.make("multiply", {h, scale}, {}, "scaled"));
}

graph::Graph reductions() {
  graph::Builder b;
  auto x = b.input("x", {1, 16, 7, 9});
  auto pooled = b.flatten(b.global_avg_pool2d(x, "pool"), "flat");
  return b.finish(b.softmax(pooled, -1, "prob"));
}

graph::Graph dense() {
  graph::Builder b;
  auto x = b.input("x", {2, 100});
  auto w = b.constant("fc.weight", weights({30, 100}, 21));
  auto bias = b.constant("fc.bias", weights({30}, 22));
  return b.finish(b.relu(b.bias_add(b.dense(x, w, "fc"), bias, 1, "fc.add"), "fc.relu"));
}

graph::Graph conv() {
  graph::Builder b;
  auto x = b.input("data", {1, 3, 17, 19});
  auto w = b.constant("conv.weight", weights({8, 3, 3, 3}, 31));
  auto y = b.conv2d(x, w, {.strides = {2, 2}, .padding = {1, 1}}, "conv");
  auto bn = b.batch_norm(y, b.constant("bn.gamma", NDArray::random({8}, Float(32), 32, 0.5, 1.5)),
                         b.constant("bn.beta", weights({8}, 33)), b.constant("bn.mean", weights({8}, 34)),
                         b.constant("bn.var", NDArray::random({8}, Float(32), 35, 0.5, 1.5)), 1e-5, "bn");
  return b.finish(b.relu(bn, "relu"));
}

// Convolutions in channel blocks (as resnet18's): rows of 11 and 6 texels, which the
// texels a fragment computes (8 with -draw-buffers=8) do not divide, a residual add and
// a strided 1x1 convolution.
graph::Graph blocked_convs() {
  graph::Builder b;
  auto x = b.input("data", {1, 8, 13, 11});
  auto c1 = b.relu(b.conv2d(x, b.constant("c1.weight", weights({16, 8, 3, 3}, 51)), {.padding = {1, 1}}, "c1"),
                   "c1.relu");
  auto c2 = b.conv2d(c1, b.constant("c2.weight", weights({16, 16, 3, 3}, 52)), {.padding = {1, 1}}, "c2");
  auto r = b.relu(b.add(c2, c1, "c2.add"), "c2.relu");
  auto c3 = b.conv2d(r, b.constant("c3.weight", weights({8, 16, 1, 1}, 53)), {.strides = {2, 2}}, "c3");
  return b.finish(b.relu(b.bias_add(c3, b.constant("c3.bias", weights({8}, 54)), 1, "c3.add"), "c3.relu"));
}

// An operator this program registers itself (not one of the library's): swish with a
// slope, x * sigmoid(beta * x), after a convolution (fused into its kernel) and again
// on its own (a kernel it leads).
const bool swish_registered = [] {
  graph::OpDef def;
  def.name = "test.swish_beta";
  def.inputs = {"x"};
  def.attrs = {{"beta", graph::AttrType::Real, 1.0}};
  def.pattern = graph::OpPattern::kElementWise;
  def.compute = [](const graph::Node &n, const std::vector<Tensor> &in, const std::string &name) {
    const Tensor x = in[0];
    const float beta = float(n.attr_double("beta"));
    return compute(x.shape(), [&](const std::vector<Var> &i) {
      Expr v = x(std::vector<Expr>(i.begin(), i.end()));
      return v * sigmoid(v * beta);
    }, name);
  };
  graph::register_op(def);
  return true;
}();

graph::Graph custom_op() {
  graph::Builder b;
  auto x = b.input("data", {1, 4, 9, 10});
  auto c = b.conv2d(x, b.constant("conv.weight", weights({8, 4, 3, 3}, 61)), {.padding = {1, 1}}, "conv");
  auto s = b.make("test.swish_beta", {c}, {{"beta", 1.5}}, "swish");
  auto p = b.max_pool2d(s, {2, 2}, {2, 2}, {0, 0}, "pool");
  return b.finish(b.make("test.swish_beta", {p}, {{"beta", -0.75}}, "swish2"));
}

// Every trigonometric and hyperbolic map, each on values in its domain, summed. No
// weights: the error cases take the smallest package that has some.
graph::Graph trigonometry() {
  graph::Builder b;
  auto x = b.input("x", {2, 3, 17});
  auto t = b.make("tanh", {x});  // in (-1, 1)
  auto c = b.make("cosh", {x});  // 1 and above
  std::vector<graph::NodeRef> terms;
  for (const char *op : {"sin", "cos", "atan", "sinh", "asinh"}) terms.push_back(b.make(op, {x}));
  for (const char *op : {"tan", "asin", "acos", "atanh"}) terms.push_back(b.make(op, {t}));
  terms.push_back(c);
  terms.push_back(b.make("acosh", {b.make("add", {c, c})}));
  graph::NodeRef sum = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) sum = b.make("add", {sum, terms[i]}, {}, i + 1 == terms.size() ? "y" : "");
  return b.finish(sum);
}

// Two outputs (a sum and the relu it adds): run() returns both by name; the test compares
// the second, which is also read by the first's kernel.
graph::Graph two_outputs() {
  graph::Builder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto r = b.relu(x, "r");
  return b.finish({b.add(r, x, "sum"), r});
}

graph::Graph long_row() {
  graph::Builder b;
  auto x = b.input("x", {1, 50001});
  auto c = b.constant("offset", weights({1, 50001}, 41));
  return b.finish(b.relu(b.add(x, c, "add"), "relu"));
}

const std::vector<Package> &packages() {
  static const std::vector<Package> all = {
      {"resnet18", "torchvision resnet18 (seed 0) on one 3x224x224 image", "webgl",
       [] { return graph::resnet18(0); }},
      {"elementwise", "relu(x + bias) * scale, scale [8,1,1] broadcast over [2,8,5,7]", "webgl", elementwise},
      {"reductions", "softmax(flatten(global_avg_pool2d(x))) on [1,16,7,9]", "webgl", reductions},
      {"dense", "relu(dense(x [2,100], w [30,100]) + b)", "webgl", dense},
      {"conv2d", "conv2d 3->8 3x3 stride 2 padding 1 on [1,3,17,19], batch_norm (folded), relu", "webgl", conv},
      {"blocked_convs", "three convolutions in channel blocks (3x3 8->16, 3x3 16->16 + residual, 1x1 stride 2 "
                        "16->8) on [1,8,13,11], eight texels per fragment",
       "webgl -draw-buffers=8", blocked_convs},
      {"long_row", "relu(x + c) on [1,50001] with textures of at most 128 texels a side (many rows, "
                   "a partial last texel)",
       "webgl -max-texture-size=128", long_row},
      {"custom_op", "an operator registered by the program (swish with a slope) after a convolution and "
                    "after a max pool, on [1,4,9,10]",
       "webgl", custom_op},
      {"two_outputs", "two outputs, x + relu(x) and relu(x), on [1,4,8,8]; the second is compared", "webgl",
       two_outputs},
      {"trigonometry", "sin, cos, tan, their inverses and the hyperbolic functions and theirs, summed, on [2,3,17]",
       "webgl", trigonometry},
  };
  return all;
}

void write_bytes(const fs::path &p, const void *data, size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  TIR_USER_CHECK(out.good()) << "cannot write " << p.string();
  out.write(static_cast<const char *>(data), std::streamsize(n));
  TIR_USER_CHECK(out.good()) << "writing " << p.string() << " failed";
}

std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// y = where(mask, x, table[ids]): x where the mask is set, else the row of `table` the id
// of its row names; best = argmax(y) per row (int64), positive = y > 0 (bool); and two
// constant outputs, as an ONNX import gives for a shape known at import and an empty
// result: dims = [10, 8] (int64) and none, float32 [0, 3].
graph::Graph masked_lookup() {
  graph::Builder b;
  auto x = b.input("x", {3, 8});
  auto mask = b.input("mask", {3, 8}, Bool());
  auto ids = b.input("ids", {3}, Int(64));
  auto rows = b.make("take", {b.constant("table", weights({10, 8}, 41)), ids}, {{"axis", int64_t{0}}}, "rows");
  auto y = b.make("where", {mask, x, rows}, {}, "y");
  auto best = b.make("argmax", {y}, {{"axis", int64_t{1}}, {"keepdims", int64_t{0}}}, "best");
  auto positive = b.make("greater", {y, b.constant("zero", NDArray::from_vector<float>({0.f}, {1}))}, {}, "positive");
  auto dims = b.constant("dims", NDArray::from_vector<int64_t>({10, 8}, {2}));
  auto none = b.constant("none", NDArray::empty({0, 3}, Float(32)));
  return b.finish({y, best, positive, dims, none});
}

// The values of `a` (float32, int64 or bool) as a JSON list.
std::string json_values(const NDArray &a) {
  std::string out;
  auto add = [&](const std::string &v) { out += (out.empty() ? "" : ", ") + v; };
  if (a.dtype() == Float(32)) {
    for (float v : a.to_vector<float>()) add(std::to_string(v));
  } else if (a.dtype() == Int(64)) {
    for (int64_t v : a.to_vector<int64_t>()) add(std::to_string(v));
  } else {
    for (uint8_t v : a.to_vector<uint8_t>()) add(std::to_string(int(v)));
  }
  return "[" + out + "]";
}

void make_demo_package(const fs::path &dir) {
  const graph::Graph g = masked_lookup();
  const graph::CompiledModel webgl = graph::build(g, "webgl"), wasm = graph::build(g, "wasm");
  graph::export_web_index({&webgl, &wasm}, dir.string(), {.name = "masked_lookup"});
  std::map<std::string, NDArray> inputs;
  uint64_t seed = 1;
  for (int id : g.input_ids()) inputs[g.node(id).name] = NDArray::random(g.node(id).shape, g.node(id).dtype, seed++);
  const graph::Outputs out = graph::build(g, "llvm").run(inputs);
  std::string outputs;
  for (size_t i = 0; i < out.size(); ++i)
    outputs += (i ? ", \"" : "\"") + out.names()[i] + "\": " + json_values(out.at(i));
  const std::string expected = "{\"seed\": 1, \"outputs\": {" + outputs + "}}\n";
  write_bytes(dir / "demo_expected.json", expected.data(), expected.size());
  std::printf("masked_lookup  %s\n", dir.string().c_str());
}

enum class Mode { WebGL, Wasm, Both };

void make_package(const Package &p, const fs::path &dir, Mode mode) {
  const graph::Graph g = p.make();
  const graph::Node &in = g.node(g.input_ids().at(0));
  TIR_ASSERT(g.input_ids().size() == 1) << p.name << ": one input";
  const NDArray input = NDArray::random(in.shape, Float(32), 1234);
  graph::CompiledModel web = graph::build(g, mode == Mode::Wasm ? Target("wasm") : Target(p.target));
  graph::WebExportInfo info;
  if (mode == Mode::Both) {
    const graph::CompiledModel wasm = graph::build(g, "wasm");
    info = graph::export_web_index({&web, &wasm}, dir.string(), {.name = p.name});
  } else {
    info = graph::export_web(web, dir.string(), {.name = p.name});
  }
  // The last output is the one compared.
  const graph::Node &out = g.node(g.outputs().back());
  const NDArray expected = graph::build(g, "llvm").run({{in.name, input}})[out.name];
  write_bytes(dir / "test_input.bin", input.data(), input.nbytes());
  write_bytes(dir / "test_expected.bin", expected.data(), expected.nbytes());
  const std::string test = "{\"input\": " + json_string(in.name) + ", \"output\": " +
                           json_string(out.name) + ", \"tolerance\": 1e-3, \"description\": " +
                           json_string(p.description) + "}\n";
  write_bytes(dir / "test.json", test.data(), test.size());
  std::printf("%-12s %3zu kernels %4zu passes %3zu textures  %8zu bytes of params  %s\n", p.name.c_str(),
              web.num_kernels(), info.passes, info.textures, info.params_bytes, dir.string().c_str());
}

}  // namespace

int main(int argc, char **argv) {
  Mode mode = Mode::WebGL;
  if (argc == 3 && std::string(argv[1]) == "--demo") {
    try {
      make_demo_package(fs::path(argv[2]) / "masked_lookup");
      return 0;
    } catch (const std::exception &e) {
      std::fprintf(stderr, "tensorir_web_packages: %s\n", e.what());
      return 1;
    }
  }
  if (argc > 2 && std::string(argv[1]) == "--target") {
    const std::string t = argv[2];
    if (t == "wasm") mode = Mode::Wasm;
    else if (t == "webgl+wasm") mode = Mode::Both;
    else if (t != "webgl") {
      std::fprintf(stderr, "tensorir_web_packages: --target is webgl, wasm or webgl+wasm, not '%s'\n", t.c_str());
      return 2;
    }
    argc -= 2;
    argv += 2;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: tensorir_web_packages [--target wasm|webgl+wasm] OUT_DIR [NAME...]\n"
                         "       tensorir_web_packages --demo OUT_DIR\n");
    return 2;
  }
  try {
    const fs::path out = argv[1];
    std::vector<std::string> wanted(argv + 2, argv + argc);
    for (const std::string &w : wanted) {
      bool known = false;
      for (const Package &p : packages()) known = known || p.name == w;
      TIR_USER_CHECK(known) << "no package called '" << w << "'";
    }
    // A package that fails is reported; the others are still written.
    int failed = 0;
    for (const Package &p : packages()) {
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), p.name) == wanted.end()) continue;
      try {
        make_package(p, out / p.name, mode);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "tensorir_web_packages: %s: %s\n", p.name.c_str(), e.what());
        ++failed;
      }
    }
    return failed ? 1 : 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensorir_web_packages: %s\n", e.what());
    return 1;
  }
}
