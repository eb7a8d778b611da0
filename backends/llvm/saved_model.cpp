// The model writer of "llvm" (CompiledModel::save): the kernels linked into one shared
// library, the execution plan and the constants, in the files runtime/model_files.h
// describes, for runtime::load_model. The plan's buffers are the compiled model's storage
// plan (CompiledModel::Impl::plan): its shared buffers, then one per result with storage
// of its own (the outputs).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>

#include "backends/llvm/object_file.h"
#include "graph/compiled_model.h"
#include "runtime/kernel_table.h"
#include "runtime/model_files.h"
#include "tensorir/graph/artifact.h"
#include "tensorir/graph/memory_plan.h"
#include "tensorir/graph/passes.h"

namespace tensorir::llvm_backend {

namespace {

namespace fs = std::filesystem;
using runtime::SavedKernel;
using runtime::SavedModel;
using runtime::SavedValue;
using namespace graph;

void save_cpu_model(const CompiledModel &model, const std::string &dir) {
  const CompiledModel::Impl &m = model.impl();
  TIR_ASSERT(m.device == Device::cpu()) << "save: a model for '" << m.target.str() << "' on " << m.device;
  const Graph &g = m.graph;
  std::error_code ec;
  fs::create_directories(dir, ec);
  TIR_USER_CHECK(fs::is_directory(dir)) << "save: cannot create the directory '" << dir << "'"
                                        << (ec ? ": " + ec.message() : std::string());

  // The values: every graph input (run() asks for each), then what the kernels touch.
  SavedModel plan;
  plan.target = m.target.str();
  const ObjectMachine machine = object_machine(m.target);
  plan.cpu = machine.cpu;
  plan.cpu_features = machine.features;
  std::map<int, int> value_of;  // node id -> index into plan.values
  std::vector<NDArray> params;
  plan.buffers = m.plan.buffers;
  auto add_value = [&](int id) {
    auto it = value_of.find(id);
    if (it != value_of.end()) return it->second;
    const Node &n = g.node(id);
    SavedValue v;
    v.name = n.name;
    v.dtype = n.dtype;
    v.shape = n.shape;
    if (n.op == "input") {
      v.role = SavedValue::Input;
    } else if (n.op == "constant") {
      v.role = SavedValue::Constant;
      v.param = int(params.size());
      const NDArray &c = m.storage[size_t(id)];
      params.push_back(c.device() == Device::cpu() ? c : c.to(Device::cpu()));
    } else {
      v.role = SavedValue::Buffer;
      const StoragePlan::Place &p = m.plan.at(id);
      if (p.storage == StoragePlan::Storage::Shared) {
        v.buffer = p.buffer;
        v.offset = p.offset;
      } else {
        TIR_ASSERT(p.storage == StoragePlan::Storage::Own) << "node '" << n.name << "' is computed but has no storage";
        constexpr size_t a = StoragePlan::kAlignment;
        v.buffer = int(plan.buffers.size());
        plan.buffers.push_back((node_bytes(n) + a - 1) / a * a);
      }
    }
    plan.values.push_back(std::move(v));
    return value_of[id] = int(plan.values.size()) - 1;
  };
  for (int id : g.input_ids()) add_value(id);
  for (const Kernel &k : m.kernels) {
    const FuncSignature &sig = k.module(k.fname).signature();
    TIR_ASSERT(sig.symbols.empty() && sig.args.size() == k.args.size())
        << "kernel " << k.fname << " has shape symbols or other arguments than its nodes";
    SavedKernel sk;
    sk.fname = k.fname;
    sk.node = g.node(k.node).name;
    sk.op = g.node(k.node).op;
    for (int id : k.nodes) {
      sk.fused.push_back(g.node(id).name);
      if (op_pattern(g.node(id).op) == OpPattern::kOutFusable) sk.op = g.node(id).op;
    }
    for (int id : k.args) sk.args.push_back(add_value(id));
    const int taken = m.plan.at(k.node).in_place_of;
    for (size_t a = 0; taken >= 0 && a + 1 < k.args.size(); ++a)
      if (k.args[a] == taken) sk.in_place = int(a);
    plan.kernels.push_back(std::move(sk));
  }
  for (int id : g.outputs()) plan.outputs.push_back(add_value(id));

  // One object per kernel module and one for the kernel table, linked into one library;
  // the objects are removed after.
  const fs::path out(dir);
  const fs::path objects_dir = out / "model.objects";
  fs::create_directories(objects_dir, ec);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(p, ignored);
    }
  } cleanup{objects_dir};
  std::vector<std::string> objects;
  std::set<const ModuleNode *> saved;  // kernels sharing a module save it once
  for (const Kernel &k : m.kernels) {
    if (!saved.insert(k.module.node()).second) continue;
    objects.push_back((objects_dir / ("k" + std::to_string(objects.size()) + ".o")).string());
    k.module.save(objects.back(), "o");
  }
  // params.bin first: the plan's fingerprint, which model.so carries, covers its entry.
  plan.params = runtime::write_params(params, (out / runtime::kModelParams).string());
  const std::string library = (out / runtime::kModelLibrary).string();
  if (!objects.empty()) {
    // The loader finds kernels only in the table, the one symbol the library exports.
    std::vector<FuncSignature> sigs;
    for (const Kernel &k : m.kernels) sigs.push_back(k.module(k.fname).signature());
    objects.push_back((objects_dir / "kernels.o").string());
    write_kernel_table(sigs, runtime::plan_fingerprint(plan), m.target, objects.back());
    link_shared_library(objects, library, {runtime::kKernelTableSymbol});
    const std::vector<unsigned char> bytes = runtime::read_file_bytes(library, "kernel library");
    plan.library = runtime::SavedFile{bytes.size(), runtime::fnv1a32(bytes.data(), bytes.size())};
  }
  runtime::write_model_plan(plan, (out / runtime::kModelPlan).string());
  // The plan of an older tensorir's save into this directory would only mislead.
  fs::remove(out / runtime::kOldModelPlan, ec);
}

const bool registered = [] {
  register_model_writer("llvm", save_cpu_model, runtime::kModelFormat,
                        {runtime::kModelPlan, runtime::kOldModelPlan, runtime::kModelLibrary, runtime::kModelParams});
  return true;
}();

}  // namespace

}  // namespace tensorir::llvm_backend
