// The model check's remote: models loaded and profiled on an RPC remote.
#include "rpc_model_check.h"

#include <algorithm>
#include <memory>

#include "tensorir/error.h"
#include "tensorir/graph/artifact.h"
#include "tensorir/rpc.h"

namespace tensorir::cli {

bool remote_runs_models(const Target &target) {
  const std::vector<std::string> writers = graph::model_writer_kinds();
  return std::count(writers.begin(), writers.end(), target.kind) || graph::has_web_exporter(target.kind);
}

void time_models_on_remote(autotune::ModelCheckOptions &o, const std::string &address, const std::string &key,
                           const Target &target) {
  TIR_USER_CHECK(remote_runs_models(target))
      << "models built for " << target.str() << " cannot be loaded on a remote (only \"llvm\", \"wasm\" and "
      << "\"webgl\" models can); their log cannot be checked in the model there";
  auto session = std::make_shared<rpc::Session>(rpc::connect(address, key));
  int threads = 1;
  bool found = false;
  for (const rpc::RemoteDeviceInfo &d : session->devices()) {
    if (d.name != target.kind) continue;
    found = true;
    if (auto it = d.attrs.find("threads"); it != d.attrs.end()) threads = std::max(1, std::atoi(it->second.c_str()));
  }
  TIR_USER_CHECK(found) << "the remote '" << key << "' at " << address << " has no " << target.kind
                        << " device: models built for " << target.str() << " cannot run there";
  o.threads = {threads};
  o.remote = [session](const graph::CompiledModel &m, const std::map<std::string, NDArray> &inputs) {
    auto model = std::make_shared<rpc::RemoteModel>(session->load(m));
    return autotune::ModelProfiler([session, model, inputs](int repeats) {
      std::vector<graph::KernelProfile> out;
      for (const rpc::RemoteKernelProfile &k : model->profile(inputs, repeats)) out.push_back({k.node, k.op, k.ms, {}});
      return out;
    });
  };
}

}  // namespace tensorir::cli
