// The RPC runner of `tensorir tune --rpc`.
#include "rpc_runner.h"

#include "tensorir/rpc.h"

namespace tensorir::cli {

namespace {

class RpcRunner : public autotune::Runner {
 public:
  RpcRunner(std::string address, std::string key) : address_(std::move(address)), key_(std::move(key)) {
    session_ = rpc::connect(address_, key_);  // a wrong address fails before any build
  }

  autotune::MeasureResult run(const Module &module, const std::string &function, const std::vector<NDArray> &args,
                              const std::vector<NDArray> *expected, const autotune::MeasureOptions &options) override {
    autotune::MeasureResult r;
    try {
      if (!session_.defined()) session_ = rpc::connect(address_, key_);
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
  rpc::Session session_;
};

}  // namespace

std::shared_ptr<autotune::Runner> rpc_runner(const std::string &address, const std::string &key) {
  return std::make_shared<RpcRunner>(address, key);
}

}  // namespace tensorir::cli
