// `tensorir tune --rpc`: the log checked inside the model on the RPC remote that timed the
// search (autotune::check_in_model with ModelCheckOptions::remote).
#pragma once
#include <string>

#include "tensorir/autotune/model_check.h"
#include "tensorir/target.h"

namespace tensorir::cli {

// Sets `o` to time the models on the remote paired by `key` at `address`: each model is
// loaded there once (rpc::Session::load: a saved model on a server, a web package on a page)
// and profiled there, at the one thread count that remote's device for `target` runs models
// at (its "threads"; 1 where it has none, as a GPU). A target whose models cannot be sent
// to a remote (rpc::remote_loads_models), or a remote without its device, throws an Error saying so.
void time_models_on_remote(autotune::ModelCheckOptions &o, const std::string &address, const std::string &key,
                           const Target &target);

}  // namespace tensorir::cli
