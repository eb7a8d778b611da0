// `tensorir tune --rpc`: candidates timed on an RPC remote (include/tensorir/rpc.h).
#pragma once
#include <memory>
#include <string>

#include "tensorir/autotune/tuner.h"

namespace tensorir::cli {

// Uploads each candidate to the remote paired by `key` at `address` and times it there, on
// the remote's device named after the module's backend. A failed call (the remote gone,
// the kernel refused, no reply within `timeout_s`: rpc::ConnectOptions::request_timeout_ms)
// is the candidate's error; the next candidate connects again.
std::shared_ptr<autotune::Runner> rpc_runner(const std::string &address, const std::string &key, double timeout_s);

}  // namespace tensorir::cli
