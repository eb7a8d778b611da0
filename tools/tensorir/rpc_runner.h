// `tensorir tune --rpc`: candidates timed on an RPC remote (include/tensorir/rpc.h).
#pragma once
#include <memory>
#include <string>

#include "tensorir/autotune/tuner.h"

namespace tensorir::cli {

// How long the runner waits for its remote.
struct RpcRunnerOptions {
  // A measurement's limit: no request may outlast it (rpc::ConnectOptions::request_timeout_ms).
  double timeout_s = 10;
  // How long connecting waits for a free remote of the key (at least timeout_s).
  double connect_s = 10;
  // After a candidate failed on the remote (no reply in time, most often), how long the
  // next candidate's connection waits for the remote to finish what it was doing: a page
  // compiling a large shader for a candidate that ran out of time stays busy until the
  // compiler returns, and the candidates after it are not to blame (at least connect_s).
  double recover_s = 120;
};

// Uploads each candidate to the remote paired by `key` at `address` and times it there, on
// the remote's device named after the module's backend. A failed call (the remote gone,
// the kernel refused, no reply within the timeout) is the candidate's error; the next
// candidate connects again, waiting up to recover_s for the remote to become free.
std::shared_ptr<autotune::Runner> rpc_runner(const std::string &address, const std::string &key,
                                             const RpcRunnerOptions &options);
inline std::shared_ptr<autotune::Runner> rpc_runner(const std::string &address, const std::string &key,
                                                    double timeout_s) {
  RpcRunnerOptions o;
  o.timeout_s = timeout_s;
  return rpc_runner(address, key, o);
}

}  // namespace tensorir::cli
