// Registering with a proxy and serving through it (proxy_link.h).
#include "rpc/server/proxy_link.h"

#include <chrono>

#include "rpc/server/executor.h"
#include "rpc/server/session_loop.h"
#include "tensorir/error.h"
#include "tensorir/rpc.h"

namespace tensorir::rpc::server {

ProxyLink::ProxyLink(std::string proxy, std::string key, std::string token, uint64_t max_frame_bytes,
                     std::vector<ServerDevice> devices, nlohmann::json info, Log log)
    : proxy_(std::move(proxy)),
      key_(std::move(key)),
      token_(std::move(token)),
      max_frame_bytes_(max_frame_bytes),
      devices_(std::move(devices)),
      info_(std::move(info)),
      log_(std::move(log)) {}

void ProxyLink::serve_once() {
  std::unique_ptr<Connection> conn = Connection::dial(proxy_, max_frame_bytes_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    conn_ = conn.get();
  }
  struct Unpublish {
    ProxyLink &link;
    ~Unpublish() {
      std::lock_guard<std::mutex> lock(link.mu_);
      link.conn_ = nullptr;
    }
  } unpublish{*this};
  conn->send({{"type", "register"}, {"v", kProtocolVersion}, {"key", key_}, {"token", token_}, {"info", info_}});
  const std::string peer = "proxy " + proxy_;
  const std::optional<Frame> answer = next_frame(*conn, log_, peer);
  if (!answer) return;
  const std::string type = answer->header["type"].get<std::string>();
  TIR_USER_CHECK(type == "registered") << "the proxy at " << proxy_ << " refused to register the key '" << key_
                                       << "': " << answer->header.value("message", "it answered '" + type + "'");
  if (log_) log_("registered with the proxy at " + proxy_ + " under the key '" + key_ + "'");
  Executor executor(devices_, info_, log_);
  serve_session(*conn, executor, log_, peer);
}

void ProxyLink::run() {
  auto delay = std::chrono::milliseconds(250);
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    try {
      serve_once();
    } catch (const std::exception &e) {
      if (log_) log_(e.what());
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    // A registration that lasted resets the delay; a proxy that keeps refusing doubles it.
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) delay = std::chrono::milliseconds(250);
    if (log_) log_("registering with the proxy at " + proxy_ + " again in " + std::to_string(delay.count()) + " ms");
    wake_.wait_for(lock, delay, [&] { return stopping_; });
    if (stopping_) return;
    delay = std::min(delay * 2, std::chrono::milliseconds(10000));
  }
}

void ProxyLink::stop() noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  if (conn_) conn_->close();
  wake_.notify_all();
}

}  // namespace tensorir::rpc::server
