// The model check's remote: models loaded and profiled on an RPC remote.
#include "rpc_model_check.h"

#include <algorithm>

#include "tensorir/error.h"
#include "tensorir/rpc.h"

namespace tensorir::cli {

void time_models_on_remote(autotune::ModelCheckOptions &o, const std::string &address, const std::string &key,
                           const Target &target) {
  TIR_USER_CHECK(rpc::remote_loads_models(target.kind))
      << "models built for " << target.str() << " cannot be loaded on a remote (only \"llvm\", \"wasm\" and "
      << "\"webgl\" models can); their log cannot be checked in the model there";
  const rpc::Session session = rpc::connect(address, key);
  int threads = 1;
  bool found = false;
  for (const rpc::RemoteDeviceInfo &d : session.devices()) {
    if (d.name != target.kind) continue;
    found = true;
    if (auto it = d.attrs.find("threads"); it != d.attrs.end()) threads = std::max(1, std::atoi(it->second.c_str()));
  }
  TIR_USER_CHECK(found) << "the remote '" << key << "' at " << address << " has no " << target.kind
                        << " device: models built for " << target.str() << " cannot run there";
  o.threads = {threads};
  // The session stays open while this, or a model loaded on it, is held.
  o.remote = [session](const graph::CompiledModel &m, const std::map<std::string, NDArray> &inputs) {
    const rpc::RemoteModel model = session.load(m);
    return autotune::ModelProfiler([model, inputs](int repeats) {
      std::vector<graph::KernelProfile> out;
      for (const rpc::RemoteKernelProfile &k : model.profile(inputs, repeats)) out.push_back({k.node, k.op, k.ms, {}});
      return out;
    });
  };
}

}  // namespace tensorir::cli
