// The RPC runner of `tensorir tune --rpc`.
#include "rpc_runner.h"

#include <algorithm>
#include <climits>

#include "tensorir/error.h"
#include "tensorir/rpc.h"

namespace tensorir::cli {

namespace {

class RpcRunner : public autotune::Runner {
 public:
  RpcRunner(std::string address, std::string key, double timeout_s)
      : address_(std::move(address)), key_(std::move(key)) {
    // No request of a measurement may outlast the whole measurement: a hanging candidate
    // then fails with "no reply", closing the session, and the next one connects again.
    connect_.request_timeout_ms = int(std::min(timeout_s * 1000.0, double(INT_MAX)));
    session_ = rpc::connect(address_, key_, connect_);  // a wrong address fails before any build
  }

  autotune::MeasureResult run(const Module &module, const std::string &function, const std::vector<NDArray> &args,
                              const std::vector<NDArray> *expected, const autotune::MeasureOptions &options) override {
    autotune::MeasureResult r;
    try {
      if (!session_.defined()) session_ = rpc::connect(address_, key_, connect_);
      const Module remote = session_.load(module);
      const Device dev = session_.device(module.node()->backend());
      std::vector<NDArray> on_remote;
      std::vector<Arg> call_args;
      for (const NDArray &a : args) on_remote.push_back(a.to(dev));
      for (const NDArray &a : on_remote) call_args.emplace_back(a);
      if (expected) {
        remote(function).call(call_args);
        std::vector<NDArray> got;
        for (const NDArray &a : on_remote) got.push_back(a.to(Device::cpu()));
        r.error = autotune::check_outputs(got, *expected);
        if (!r.error.empty()) return r;
      }
      r.times_ms = remote.time_evaluator(function, options.time).call(call_args).times_ms;
    } catch (const std::exception &e) {
      r.error = std::string("rpc error: ") + e.what();
      session_ = rpc::Session();  // connect again for the next candidate
    }
    return r;
  }

 private:
  std::string address_, key_;
  rpc::ConnectOptions connect_;
  rpc::Session session_;
};

}  // namespace

std::shared_ptr<autotune::Runner> rpc_runner(const std::string &address, const std::string &key,
                                             double timeout_s) {
  TIR_USER_CHECK(timeout_s > 0) << "tune --rpc: the measurement timeout must be positive, not " << timeout_s;
  return std::make_shared<RpcRunner>(address, key, timeout_s);
}

}  // namespace tensorir::cli
