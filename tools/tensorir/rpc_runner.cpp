// The RPC runner of `tensorir tune --rpc`.
#include "rpc_runner.h"

#include <algorithm>
#include <climits>

#include "tensorir/error.h"
#include "tensorir/rpc.h"

namespace tensorir::cli {

namespace {

// A candidate uploaded with its arguments on the remote's device; the remote frees the
// module and the arrays when this goes.
struct OnRemote {
  Module module;
  std::vector<NDArray> arrays;
  std::vector<Arg> args;

  OnRemote(const rpc::Session &session, const Module &local, const std::vector<NDArray> &host) {
    module = session.load(local);
    const Device dev = session.device(local.node()->backend());
    for (const NDArray &a : host) arrays.push_back(a.to(dev));
    for (const NDArray &a : arrays) args.emplace_back(a);
  }

  std::vector<NDArray> call(const std::string &function) {
    module(function).call(args);
    std::vector<NDArray> got;
    for (const NDArray &a : arrays) got.push_back(a.to(Device::cpu()));
    return got;
  }
};

// How the remote times a candidate: a kernel of the remote's CPU ("llvm" on a server,
// "wasm" on a page) cold unless MeasureOptions::flush_cache is off; GPU kernels hot.
TimeOptions remote_time(const autotune::MeasureOptions &o, const std::string &backend) {
  TimeOptions t = o.time;
  if (!o.flush_cache || (backend != "llvm" && backend != "wasm")) return t;
  t.evict_bytes = o.remote_evict_bytes;
  return t;
}

int to_ms(double s) { return int(std::min(s * 1000.0, double(INT_MAX))); }

class RpcRunner : public autotune::Runner {
 public:
  RpcRunner(std::string address, std::string key, const RpcRunnerOptions &o)
      : address_(std::move(address)), key_(std::move(key)) {
    // No request of a measurement may outlast the whole measurement: a hanging candidate
    // then fails with "no reply", closing the session, and the next one connects again.
    connect_.request_timeout_ms = to_ms(o.timeout_s);
    // A remote still finishing an abandoned request is paired again once it has answered
    // (docs/rpc.md); a hung one costs each later candidate this long, not the proxy's
    // default minute.
    connect_.timeout_ms = std::max(connect_.request_timeout_ms, to_ms(o.connect_s));
    recover_ms_ = std::max(connect_.timeout_ms, to_ms(o.recover_s));
    session_ = rpc::connect(address_, key_, connect_);  // a wrong address fails before any build
  }

  autotune::MeasureResult run(const Module &module, const std::string &function, const std::vector<NDArray> &args,
                              const std::vector<NDArray> *expected, const autotune::MeasureOptions &options) override {
    autotune::MeasureResult r;
    try {
      OnRemote remote(session(), module, args);
      if (expected) {
        r.error = autotune::check_outputs(remote.call(function), *expected);
        if (!r.error.empty()) return r;
      }
      r.times_ms = remote.module.time_evaluator(function, remote_time(options, module.node()->backend())).call(remote.args).times_ms;
    } catch (const std::exception &e) {
      r.error = std::string("rpc error: ") + e.what();
      abandon();  // connect again for the next candidate
    }
    return r;
  }

  // The reference runs on the remote too: "wasm" and "webgl" kernels do not run here.
  std::vector<NDArray> outputs(const Module &module, const std::string &function,
                               const std::vector<NDArray> &args) override {
    try {
      return OnRemote(session(), module, args).call(function);
    } catch (const std::exception &) {
      abandon();
      throw;
    }
  }

 private:
  // A connection, waiting for the remote to finish an abandoned request first; only the
  // first connection after it waits that long, so that a remote that never finishes
  // costs each candidate the usual wait.
  const rpc::Session &session() {
    if (!session_.defined()) {
      rpc::ConnectOptions c = connect_;
      if (recovering_) c.timeout_ms = recover_ms_;
      recovering_ = false;
      session_ = rpc::connect(address_, key_, c);
    }
    return session_;
  }
  // After a failure: a session that was open failed during a request, which the remote
  // may still be running; a connection that was refused leaves nothing to wait for.
  void abandon() {
    recovering_ = session_.defined();
    session_ = rpc::Session();
  }

  std::string address_, key_;
  rpc::ConnectOptions connect_;
  int recover_ms_ = 0;
  bool recovering_ = false;
  rpc::Session session_;
};

}  // namespace

std::shared_ptr<autotune::Runner> rpc_runner(const std::string &address, const std::string &key,
                                             const RpcRunnerOptions &options) {
  TIR_USER_CHECK(options.timeout_s > 0) << "tune --rpc: the measurement timeout must be positive, not "
                                        << options.timeout_s;
  TIR_USER_CHECK(options.connect_s > 0 && options.recover_s > 0)
      << "tune --rpc: the waits for a free remote must be positive, not " << options.connect_s << " and "
      << options.recover_s << " s";
  return std::make_shared<RpcRunner>(address, key, options);
}

}  // namespace tensorir::cli
