// The web exporter of "webgl" (graph::export_web): a model built for "webgl" as a web package. The kernels' plans come
// from their modules (Module::source("webgl-json")); here they are joined into one
// program list, one storage plan over textures and the kernels' passes in run order.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>

#include "graph/compiled_model.h"
#include "graph/web_package.h"
#include "runtime/json.h"
#include "tensorir/graph/artifact.h"
#include "tensorir/graph/passes.h"

namespace tensorir::glsl {

namespace {

using namespace graph;
namespace fs = std::filesystem;
using json::Value;
using namespace web_package;

constexpr int kForever = std::numeric_limits<int>::max();
// model.json's format version: 2 added passes with several render targets ("outputs").
// A package is written in the oldest version that has what it uses, so that runtimes of
// version 1 still read packages without such passes.
constexpr int kWebFormatVersion = 2;
constexpr const char *kWebglPackageFormat = "tensorir-web";

// A tensor that needs a texture: a graph value (input, constant, kernel result) or a
// kernel's internal intermediate.
struct WebValue {
  std::string what;  // for messages
  int width = 0, height = 0;
  int def = kForever;  // first pass writing it; -1 for inputs and parameters
  int last = -1;       // last pass reading it; kForever for outputs and parameters
  int texture = -1;
};

struct Packer {
  std::vector<WebValue> values;
  std::map<int, int> of_node;  // graph node id -> value

  int node_value(const Graph &g, int id) {
    auto it = of_node.find(id);
    if (it != of_node.end()) return it->second;
    WebValue v;
    v.what = "'" + g.node(id).name + "'";
    values.push_back(v);
    of_node[id] = int(values.size()) - 1;
    return int(values.size()) - 1;
  }

  void set_layout(int v, int w, int h) {
    WebValue &x = values[size_t(v)];
    if (x.width == 0) {
      x.width = w;
      x.height = h;
      return;
    }
    TIR_ASSERT(x.width == w && x.height == h)
        << "export_web: " << x.what << " has texture layouts " << x.width << "x" << x.height << " and " << w << "x"
        << h << " in two kernels";
  }
};

// An unread value's texture: any width works, since no shader addresses it.
void plain_layout(WebValue &v, const std::vector<int64_t> &shape, int max_size) {
  int64_t texels = 1;
  for (int64_t d : shape) texels *= d;
  texels = std::max<int64_t>((texels + 3) / 4, 1);
  v.width = int(std::min<int64_t>(texels, max_size));
  v.height = int((texels + v.width - 1) / v.width);
  TIR_USER_CHECK(v.height <= max_size) << "export_web: " << v.what << " needs more than " << max_size << " x "
                                       << max_size << " texels";
}

WebExportInfo export_webgl(const CompiledModel &model, const std::string &dir, const WebExportOptions &options) {
  const CompiledModel::Impl &m = model.impl();
  const Graph &g = m.graph;

  // The kernels' plans, joined: programs deduplicated, values and passes in run order.
  Packer pk;
  Value programs = Value::array();
  std::map<std::string, int> program_index;
  std::string vertex_shader;
  int max_size = 0;
  struct PassRef {
    int program = -1;
    std::vector<int> outputs;  // values rendered into, at locations 0, 1, ...
    std::vector<std::pair<std::string, int>> inputs;  // (sampler, value)
  };
  std::vector<std::vector<PassRef>> kernel_passes;
  int step = 0;
  for (const Kernel &k : m.kernels) {
    const Value doc = json::parse(k.module.source("webgl-json"));
    if (vertex_shader.empty()) vertex_shader = doc.at("vertex_shader").as_string();
    const Value *fn = nullptr;
    for (const Value &f : doc.at("functions").items())
      if (f.at("name").as_string() == k.fname) fn = &f;
    TIR_ASSERT(fn) << "export_web: kernel " << k.fname << " is missing from its module";
    TIR_USER_CHECK(!fn->at("symbolic").as_bool())
        << "export_web: kernel " << k.fname << " has symbolic shapes or scalar arguments; web packages need "
        << "every shape constant";
    max_size = int(fn->at("max_texture_size").as_int());
    // Plan tensor -> value, made when a pass first names it: arguments are graph nodes,
    // the rest the kernel's own.
    const auto &tensors = fn->at("tensors").items();
    std::vector<int> value_of(tensors.size(), -1);
    auto value = [&](int t) {
      const Value &jt = tensors.at(size_t(t));
      if (value_of[size_t(t)] < 0) {
        const int arg = int(jt.at("arg").as_int());
        TIR_ASSERT(arg < int(k.args.size())) << "export_web: kernel " << k.fname << " argument " << arg;
        TIR_ASSERT(jt.at("format").as_string() == "RGBA32F")
            << "export_web: kernel " << k.fname << " stores " << jt.at("name").as_string() << " unpacked";
        if (arg >= 0) {
          value_of[size_t(t)] = pk.node_value(g, k.args[size_t(arg)]);
        } else {
          WebValue v;
          v.what = "'" + jt.at("name").as_string() + "' of kernel " + k.fname;
          pk.values.push_back(v);
          value_of[size_t(t)] = int(pk.values.size()) - 1;
        }
      }
      const int v = value_of[size_t(t)];
      pk.set_layout(v, int(jt.at("width").as_int()), int(jt.at("height").as_int()));
      return v;
    };
    std::vector<PassRef> passes;
    for (const Value &jp : fn->at("passes").items()) {
      PassRef p;
      const std::string &src = jp.at("source").as_string();
      auto [it, added] = program_index.emplace(src, int(programs.size()));
      if (added) programs.push(src);
      p.program = it->second;
      if (const Value *outs = jp.find("outputs")) {
        for (const Value &o : outs->items()) p.outputs.push_back(value(int(o.as_int())));
      } else {
        p.outputs.push_back(value(int(jp.at("output").as_int())));
      }
      for (int o : p.outputs) {
        WebValue &ov = pk.values[size_t(o)];
        ov.def = std::min(ov.def, step);
      }
      for (const Value &in : jp.at("inputs").items()) {
        const int v = value(int(in.at("tensor").as_int()));
        pk.values[size_t(v)].last = std::max(pk.values[size_t(v)].last, step);
        p.inputs.emplace_back(in.at("sampler").as_string(), v);
      }
      TIR_ASSERT(jp.at("uniforms").size() == 0) << "export_web: kernel " << k.fname << " has uniforms";
      passes.push_back(std::move(p));
      ++step;
    }
    kernel_passes.push_back(std::move(passes));
  }
  // No kernel said: the target's option, checked as the backend checks it.
  if (max_size == 0) max_size = static_cast<int>(m.target.positive_option("max-texture-size", 4096, 1 << 24));

  // Inputs and parameters are there before the first pass; parameters and outputs stay.
  const std::vector<int> inputs = g.input_ids();
  for (int id : inputs) {
    check_float32(g.node(id), "input");
    pk.values[size_t(pk.node_value(g, id))].def = -1;
  }
  // Parameters: the constants the kernels read and the outputs that are constants (a shape
  // known at import, an empty result).
  check_something_runs(m);
  std::vector<int> params;
  for (const Node &n : g.nodes()) {
    if (n.op != "constant" || !(pk.of_node.count(n.id) || g.is_output(n.id))) continue;
    check_float32(n, "constant");
    params.push_back(n.id);
    WebValue &v = pk.values[size_t(pk.node_value(g, n.id))];
    v.def = -1;
    v.last = kForever;
  }
  for (int id : g.outputs()) {
    const Node &out_node = g.node(id);
    check_float32(out_node, "output");
    pk.values[size_t(pk.node_value(g, out_node.id))].last = kForever;
    if (out_node.op == "input") pk.values[size_t(pk.of_node[out_node.id])].def = -1;
  }
  for (auto &[id, v] : pk.of_node) {
    WebValue &x = pk.values[size_t(v)];
    if (x.width == 0) plain_layout(x, g.node(id).shape, max_size);
    TIR_USER_CHECK(x.def != kForever) << "export_web: " << x.what << " is neither an input, a constant nor "
                                      << "computed by a kernel";
  }

  // The storage plan: in order of first write, a value takes a texture of its size whose
  // last value was last read before this one is first written (so no pass reads the
  // texture it renders into), else a new one. Parameters never share.
  std::vector<int> order(pk.values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return pk.values[size_t(a)].def < pk.values[size_t(b)].def; });
  struct Texture {
    int width, height, free_after;
  };
  std::vector<Texture> textures;
  size_t naive = 0, peak = 0;
  for (int vi : order) {
    WebValue &v = pk.values[size_t(vi)];
    v.last = std::max(v.last, v.def);
    naive += size_t(v.width) * size_t(v.height) * 16;
    for (size_t t = 0; t < textures.size() && v.texture < 0; ++t)
      if (textures[t].width == v.width && textures[t].height == v.height && textures[t].free_after < v.def)
        v.texture = int(t);
    if (v.texture < 0) {
      textures.push_back({v.width, v.height, 0});
      v.texture = int(textures.size()) - 1;
      peak += size_t(v.width) * size_t(v.height) * 16;
    }
    textures[size_t(v.texture)].free_after = v.last;
  }

  // params.bin
  std::string param_bytes;
  Value param_list = Value::array();
  for (int id : params) {
    const Node &n = g.node(id);
    const NDArray host = n.value.device() == Device::cpu() ? n.value : n.value.to(Device::cpu());
    Value p = Value::object();
    p.set("name", n.name);
    p.set("shape", shape_json(n.shape));
    p.set("dtype", "float32");
    p.set("offset", uint64_t(param_bytes.size()));
    p.set("texture", pk.values[size_t(pk.of_node.at(id))].texture);
    param_list.push(std::move(p));
    param_bytes.append(static_cast<const char *>(host.data()), host.nbytes());
  }

  // model.json
  fs::path root = make_directory(dir);
  const std::string name = package_name(root, options);
  int largest = 1;
  Value tex_list = Value::array();
  for (const Texture &t : textures) {
    largest = std::max({largest, t.width, t.height});
    Value jt = Value::object();
    jt.set("width", t.width);
    jt.set("height", t.height);
    jt.set("format", "RGBA32F");
    tex_list.push(std::move(jt));
  }
  auto io = [&](int id) {
    const Node &n = g.node(id);
    Value t = Value::object();
    t.set("name", n.name);
    t.set("shape", shape_json(n.shape));
    // The dtype run() takes or gives; a tensor stored as float32 (store_as_float) keeps the
    // graph's, and the runtime converts it when uploading or reading it back.
    t.set("dtype", declared_dtype(n).str());
    t.set("texture", pk.values[size_t(pk.of_node.at(id))].texture);
    return t;
  };
  Value doc = Value::object();
  doc.set("format", kWebglPackageFormat);
  bool multiple_targets = false;
  for (const auto &passes : kernel_passes)
    for (const PassRef &p : passes) multiple_targets = multiple_targets || p.outputs.size() > 1;
  doc.set("version", multiple_targets ? kWebFormatVersion : 1);
  doc.set("name", name);
  doc.set("target", m.target.str());
  doc.set("max_texture_size", largest);
  Value in_list = Value::array();
  for (int id : inputs) in_list.push(io(id));
  doc.set("inputs", std::move(in_list));
  Value out_list = Value::array();
  for (int id : g.outputs()) out_list.push(io(id));
  doc.set("outputs", std::move(out_list));
  Value pj = file_json("params.bin", param_bytes);
  pj.set("tensors", std::move(param_list));
  doc.set("params", std::move(pj));
  doc.set("textures", std::move(tex_list));
  Value storage = Value::object();
  storage.set("peak_bytes", uint64_t(peak));
  storage.set("naive_bytes", uint64_t(naive));
  doc.set("storage", std::move(storage));
  doc.set("vertex_shader", vertex_shader);
  const size_t num_programs = programs.size();
  doc.set("programs", std::move(programs));
  Value kernels = Value::array();
  size_t num_passes = 0;
  for (size_t ki = 0; ki < m.kernels.size(); ++ki) {
    const Kernel &k = m.kernels[ki];
    Value jk = kernel_json(g, k);
    Value passes = Value::array();
    for (const PassRef &p : kernel_passes[ki]) {
      Value jp = Value::object();
      jp.set("program", p.program);
      jp.set("output", pk.values[size_t(p.outputs[0])].texture);
      if (p.outputs.size() > 1) {
        Value outs = Value::array();
        for (int o : p.outputs) outs.push(pk.values[size_t(o)].texture);
        jp.set("outputs", std::move(outs));
      }
      Value ins = Value::array();
      for (const auto &[sampler, v] : p.inputs) {
        Value in = Value::object();
        in.set("sampler", sampler);
        in.set("texture", pk.values[size_t(v)].texture);
        for (int o : p.outputs)
          TIR_ASSERT(pk.values[size_t(v)].texture != pk.values[size_t(o)].texture)
              << "export_web: kernel " << k.fname << " would read the texture it renders into";
        ins.push(std::move(in));
      }
      jp.set("inputs", std::move(ins));
      jp.set("uniforms", Value::array());
      passes.push(std::move(jp));
      ++num_passes;
    }
    jk.set("passes", std::move(passes));
    kernels.push(std::move(jk));
  }
  doc.set("kernels", std::move(kernels));
  doc.set("graph", graph_json(g));

  WebExportInfo info;
  const std::string text = doc.dump(1) + "\n";
  write_file(root / "model.json", text, info, "model.json");
  write_file(root / "params.bin", param_bytes, info, "params.bin");
  write_runtime(root, options, info);
  info.model_json_bytes = text.size();
  info.params_bytes = param_bytes.size();
  info.textures = textures.size();
  info.peak_bytes = peak;
  info.naive_bytes = naive;
  info.programs = num_programs;
  info.passes = num_passes;
  return info;
}

const bool registered = [] {
  register_web_exporter("webgl", export_webgl, kWebglPackageFormat, {"model.json", "params.bin"});
  return true;
}();

}  // namespace

}  // namespace tensorir::glsl
