// The web exporter of "wasm" (graph::export_web): the kernels linked into model.wasm (and
// model.threads.wasm, the same over shared memory for worker threads), and
// one linear memory laid out here, at export time, for every tensor: the parameters
// first (params.bin is their bytes, copied in as one block), then the inputs, then the
// buffers of the kernels' results (the memory plan's slots). model.json gives each
// tensor's byte offset from the start of that region (the results where the compiled
// model's storage plan puts them) and each kernel's arguments as
// offsets; the runtime adds the region's base and calls the kernels in order.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "backends/llvm/wasm_link.h"
#include "graph/compiled_model.h"
#include "graph/web_package.h"
#include "tensorir/graph/artifact.h"
#include "tensorir/graph/memory_plan.h"

namespace tensorir::llvm_backend {

namespace {

constexpr const char *kWasmPackageFormat = "tensorir-wasm";

using namespace graph;
namespace fs = std::filesystem;
using json::Value;
using namespace web_package;

constexpr size_t kAlign = StoragePlan::kAlignment;  // the kernels assume 64-byte aligned buffers

size_t aligned(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  TIR_USER_CHECK(in.good()) << "export_web: cannot read back " << path.string();
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct LinkedModules {
  std::string single;    // memory of its own, one thread
  std::string threaded;  // shared memory, for worker threads
};

// Every kernel module as an object in `tmp`, linked into the two modules.
LinkedModules link_kernels(const std::vector<Kernel> &kernels, const fs::path &tmp) {
  std::vector<std::string> objects, exports;
  std::set<const ModuleNode *> saved;  // kernels sharing a module save it once
  for (const Kernel &k : kernels) {
    exports.push_back(k.fname);
    if (!saved.insert(k.module.node()).second) continue;
    objects.push_back((tmp / ("k" + std::to_string(objects.size()) + ".o")).string());
    k.module.save(objects.back(), "o");
  }
  const fs::path single = tmp / "model.wasm", threaded = tmp / "model.threads.wasm";
  link_wasm(objects, exports, single.string());
  link_wasm(objects, exports, threaded.string(), true);
  return {read_file(single), read_file(threaded)};
}

WebExportInfo export_wasm(const CompiledModel &model, const std::string &dir, const WebExportOptions &options) {
  const CompiledModel::Impl &m = model.impl();
  const Graph &g = m.graph;
  std::map<int, size_t> offset_of;  // node id -> byte offset in the model's memory
  size_t end = 0;
  auto place = [&](int id, size_t bytes) {
    offset_of[id] = end;
    end = aligned(end + std::max<size_t>(bytes, 1));
  };

  // Parameters: the constants the kernels read and the outputs that are constants (a shape
  // known at import, an empty result), in params.bin at their offsets.
  check_something_runs(m);
  std::string param_bytes;
  Value param_list = Value::array();
  auto add_param = [&](int id) {
    const Node &n = g.node(id);
    if (n.op != "constant" || offset_of.count(id)) return;
    const NDArray host = m.storage[size_t(id)].device() == Device::cpu() ? m.storage[size_t(id)]
                                                                         : m.storage[size_t(id)].to(Device::cpu());
    place(id, host.nbytes());
    param_bytes.resize(offset_of[id]);
    param_bytes.append(static_cast<const char *>(host.data()), host.nbytes());
    Value p = Value::object();
    p.set("name", n.name);
    p.set("shape", shape_json(n.shape));
    p.set("dtype", n.dtype.str());
    p.set("offset", uint64_t(offset_of[id]));
    param_list.push(std::move(p));
  };
  for (const Kernel &k : m.kernels)
    for (int id : k.args) add_param(id);
  for (int id : g.outputs()) add_param(id);
  param_bytes.resize(end);
  const std::vector<int> inputs = g.input_ids();
  for (int id : inputs) {
    check_io_dtype(g.node(id), "input");
    place(id, node_bytes(g.node(id)));
  }
  // Results: the storage plan's shared buffers, then the results with storage of their
  // own (the output).
  std::vector<size_t> buffer_offset;
  for (size_t b : m.plan.buffers) {
    buffer_offset.push_back(end);
    end = aligned(end + b);
  }
  for (const Kernel &k : m.kernels) {
    const FuncSignature &sig = k.module(k.fname).signature();
    TIR_USER_CHECK(sig.symbols.empty() && sig.args.size() == k.args.size())
        << "export_web: kernel " << k.fname << " has symbolic shapes or scalar arguments; web packages need "
        << "every shape constant";
    const StoragePlan::Place &p = m.plan.at(k.node);
    if (p.storage == StoragePlan::Storage::Shared) offset_of[k.node] = buffer_offset[size_t(p.buffer)] + p.offset;
    else place(k.node, node_bytes(g.node(k.node)));
  }
  for (int id : g.outputs()) check_io_dtype(g.node(id), "output");

  // wasm32 addresses 4 GiB; the runtime's shared memory 2 GiB, with stacks and scratch.
  constexpr size_t kMaxRegion = size_t(1536) << 20;
  TIR_USER_CHECK(end <= kMaxRegion) << "export_web: the model needs " << (end >> 20)
                                    << " MiB of memory for its weights, inputs and results; a WebAssembly "
                                       "package holds at most " << (kMaxRegion >> 20) << " MiB";
  fs::path root = make_directory(dir);
  // The objects go to a directory of this process's own, removed whatever happens.
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = root;
  tmp /= "tensorir-wasm-" + std::to_string(getpid()) + "-" + std::to_string(reinterpret_cast<uintptr_t>(&m));
  fs::create_directories(tmp, ec);
  TIR_USER_CHECK(!ec) << "export_web: cannot create " << tmp.string() << ": " << ec.message();
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(p, ignored);
    }
  } cleanup{tmp};
  const LinkedModules wasm = link_kernels(m.kernels, tmp);

  auto io = [&](int id) {
    const Node &n = g.node(id);
    Value t = Value::object();
    t.set("name", n.name);
    t.set("shape", shape_json(n.shape));
    t.set("dtype", n.dtype.str());
    t.set("offset", uint64_t(offset_of.at(id)));
    return t;
  };
  Value doc = Value::object();
  doc.set("format", kWasmPackageFormat);
  doc.set("version", 1);
  doc.set("name", package_name(root, options));
  doc.set("target", m.target.str());
  doc.set("module", file_json("model.wasm", wasm.single));
  Value threaded = file_json("model.threads.wasm", wasm.threaded);
  threaded.set("max_memory", uint64_t(kWasmSharedMaxMemory));
  doc.set("threaded_module", std::move(threaded));
  Value memory = Value::object();
  memory.set("bytes", uint64_t(end));
  memory.set("align", uint64_t(kAlign));
  doc.set("memory", std::move(memory));
  Value in_list = Value::array();
  for (int id : inputs) in_list.push(io(id));
  doc.set("inputs", std::move(in_list));
  Value out_list = Value::array();
  for (int id : g.outputs()) out_list.push(io(id));
  doc.set("outputs", std::move(out_list));
  Value pj = file_json("params.bin", param_bytes);
  pj.set("tensors", std::move(param_list));
  doc.set("params", std::move(pj));
  Value kernels = Value::array();
  for (const Kernel &k : m.kernels) {
    Value jk = kernel_json(g, k);
    Value args = Value::array();
    for (int id : k.args) args.push(uint64_t(offset_of.at(id)));
    jk.set("args", std::move(args));
    kernels.push(std::move(jk));
  }
  doc.set("kernels", std::move(kernels));
  doc.set("graph", graph_json(g));

  WebExportInfo info;
  const std::string text = doc.dump(1) + "\n";
  write_file(root / "model.json", text, info, "model.json");
  write_file(root / "model.wasm", wasm.single, info, "model.wasm");
  write_file(root / "model.threads.wasm", wasm.threaded, info, "model.threads.wasm");
  write_file(root / "params.bin", param_bytes, info, "params.bin");
  write_runtime(root, options, info);
  info.model_json_bytes = text.size();
  info.params_bytes = param_bytes.size();
  info.peak_bytes = end - param_bytes.size();
  info.passes = m.kernels.size();
  return info;
}

const bool registered = [] {
  register_web_exporter("wasm", export_wasm, kWasmPackageFormat,
                        {"model.json", "model.wasm", "model.threads.wasm", "params.bin"});
  return true;
}();

}  // namespace

}  // namespace tensorir::llvm_backend
