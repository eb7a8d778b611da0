// WebSocket connections and the listener (connection.h), on Boost.Beast's synchronous API:
// every connection has a thread of its own, which keeps the proxy and server simple.
#include "rpc/connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "tensorir/error.h"

namespace tensorir::rpc {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

void split_address(const std::string &address, std::string &host, std::string &port) {
  const size_t colon = address.rfind(':');
  TIR_USER_CHECK(colon != std::string::npos && colon + 1 < address.size())
      << "RPC address '" << address << "' has no port; write HOST:PORT, e.g. 127.0.0.1:9190";
  host = address.substr(0, colon);
  port = address.substr(colon + 1);
  // Checked here: the resolver would take 99999 as 99999 mod 65536.
  const bool number = port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
  TIR_USER_CHECK(number && std::stoi(port) >= 1 && std::stoi(port) <= 65535)
      << "RPC address '" << address << "': the port '" << port << "' is not a number from 1 to 65535";
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";
}

std::string join_address(const std::string &host, int port) {
  const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool is_loopback(const std::string &host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

struct Connection::Impl {
  net::io_context ioc;
  websocket::stream<tcp::socket> ws{ioc};
  std::mutex write_mu;
  std::atomic<bool> closed{false};
  // pump(): from then on only the thread running `ioc` touches `ws`; sends from any thread
  // are queued there, in order (Beast allows one read and one write at a time on a stream,
  // but not two threads on it).
  bool pumping = false;  // under write_mu
  std::deque<std::string> outbox;
  bool writing = false, close_when_sent = false, drain_when_sent = false;

  void write_next() {
    if (writing) return;
    if (outbox.empty()) {
      if (drain_when_sent) drain();
      if (close_when_sent) shut_down();
      return;
    }
    writing = true;
    ws.async_write(net::buffer(outbox.front()), [this](boost::system::error_code ec, size_t) {
      writing = false;
      outbox.pop_front();
      if (ec) {
        shut_down();
        return;
      }
      write_next();
    });
  }

  void shut_down() {
    closed = true;
    boost::system::error_code ec;
    ws.next_layer().shutdown(tcp::socket::shutdown_both, ec);
  }
  std::string peer;
  uint64_t max_frame_bytes = kDefaultMaxFrameBytes;

  void configure() {
    // A client masks what it sends in pieces of write_buffer_bytes: with Nagle's algorithm
    // each piece after the first waited for the peer's delayed ACK (40 ms per request).
    boost::system::error_code ec;
    ws.next_layer().set_option(tcp::no_delay(true), ec);
    ws.binary(true);
    // The limit is checked in receive_message(): Beast's own would close the connection
    // before the error frame that says why could be sent.
    ws.read_message_max(0);
    ws.auto_fragment(false);
  }

  // After refusing a frame: ends the sending side (the error already went out), then reads
  // and drops what the peer is still sending, for at most 5 s or 256 MiB, so that its
  // send completes and it reads the error rather than a reset connection.
  void drain() noexcept {
    boost::system::error_code ec;
    ws.next_layer().shutdown(tcp::socket::shutdown_send, ec);
    const int fd = ws.next_layer().native_handle();
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(5);
    char buf[1 << 16];
    for (uint64_t dropped = 0; dropped < (uint64_t(256) << 20);) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      pollfd p{fd, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, int(left.count())) <= 0) return;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      dropped += uint64_t(n);
    }
  }
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() { close(); }

std::unique_ptr<Connection> Connection::dial(const std::string &address, uint64_t max_frame_bytes, int timeout_ms) {
  std::string host, port;
  split_address(address, host, port);
  auto impl = std::make_unique<Impl>();
  impl->max_frame_bytes = max_frame_bytes;
  impl->peer = address;
  // Connecting and the WebSocket upgrade run on the connection's io_context, for at most
  // timeout_ms: a peer that accepts and never answers the upgrade must not hang the caller.
  boost::system::error_code result = net::error::would_block;
  try {
    tcp::resolver resolver(impl->ioc);
    const tcp::resolver::results_type endpoints = resolver.resolve(host, port);
    Impl &c = *impl;
    net::async_connect(c.ws.next_layer(), endpoints, [&](boost::system::error_code ec, const tcp::endpoint &) {
      if (ec) {
        result = ec;
        return;
      }
      c.configure();
      c.ws.async_handshake(host + ":" + port, "/", [&](boost::system::error_code hs) { result = hs; });
    });
    if (timeout_ms > 0) c.ioc.run_for(std::chrono::milliseconds(timeout_ms));
    else c.ioc.run();
    if (result == net::error::would_block) {
      // Cancel what is pending and let its handlers finish before the locals they use go.
      boost::system::error_code ec;
      c.ws.next_layer().close(ec);
      c.ioc.restart();
      c.ioc.run();
      TIR_THROW() << "RPC: " << address << " accepted the connection but did not complete the WebSocket handshake within "
                  << timeout_ms << " ms; is it a tensorir rpc proxy or server?";
    }
    c.ioc.restart();
    if (result) throw boost::system::system_error(result);
  } catch (const Error &) {
    throw;
  } catch (const std::exception &e) {
    TIR_THROW() << "RPC: cannot connect to " << address << ": " << e.what()
                << " (is `tensorir rpc proxy` or `tensorir rpc server` running there?)";
  }
  return std::make_unique<Connection>(std::move(impl));
}

void Connection::send(const nlohmann::json &header, std::string_view payload) {
  send_message(encode_frame(header, payload));
}

void Connection::send_message(std::string_view bytes) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  TIR_USER_CHECK(!impl_->closed) << "RPC: the connection to " << impl_->peer << " is closed";
  if (impl_->pumping) {
    net::post(impl_->ioc, [impl = impl_.get(), message = std::string(bytes)]() mutable {
      impl->outbox.push_back(std::move(message));
      impl->write_next();
    });
    return;
  }
  try {
    impl_->ws.write(net::buffer(bytes));
  } catch (const std::exception &e) {
    impl_->closed = true;
    TIR_THROW() << "RPC: cannot send to " << impl_->peer << ": " << e.what();
  }
}

Frame Connection::receive() { return decode_frame(receive_message()); }

std::string Connection::receive_message() {
  beast::flat_buffer buffer;
  bool too_big = false;
  try {
    do {
      impl_->ws.read_some(buffer, size_t(1) << 20);
      too_big = buffer.size() > impl_->max_frame_bytes;
    } while (!too_big && !impl_->ws.is_message_done());
  } catch (const beast::system_error &e) {
    impl_->closed = true;
    // Beast answers an oversized message itself, with close code 1009.
    if (impl_->ws.reason().code == websocket::close_code::too_big)
      TIR_THROW() << "RPC: " << impl_->peer << " refused a frame larger than its limit and closed the connection";
    TIR_THROW() << "RPC: the connection to " << impl_->peer << " closed (" << e.code().message() << ")";
  }
  if (too_big) {
    // Say why before closing, where the connection still allows it.
    try {
      send(error_header(nullptr, "RPC: a frame larger than " + std::to_string(impl_->max_frame_bytes) +
                                     " bytes was refused; the connection is closed"));
    } catch (...) {
    }
    impl_->drain();
    close();
    TIR_THROW() << "RPC: " << impl_->peer << " sent a frame larger than the limit of " << impl_->max_frame_bytes
                << " bytes";
  }
  TIR_USER_CHECK(impl_->ws.got_binary()) << "RPC: " << impl_->peer
                                         << " sent a text message; frames are binary messages (docs/rpc.md)";
  const auto data = buffer.data();
  return std::string(static_cast<const char *>(data.data()), data.size());
}

void Connection::close() noexcept {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  if (impl_->pumping) {
    // After what is queued has gone out (an error frame that says why, say).
    if (!impl_->closed) net::post(impl_->ioc, [impl = impl_.get()] {
      impl->close_when_sent = true;
      impl->write_next();
    });
    return;
  }
  if (impl_->closed.exchange(true)) return;
  boost::system::error_code ec;
  {
    // A WebSocket close can block on a peer that stopped reading; shut the socket down
    // first for reads blocked in other threads, then close it.
    impl_->ws.next_layer().shutdown(tcp::socket::shutdown_both, ec);
    impl_->ws.next_layer().close(ec);
  }
}

std::string Connection::pump(const std::function<void(std::string)> &on_message,
                             const std::function<void()> &on_started) {
  {
    std::lock_guard<std::mutex> lock(impl_->write_mu);
    TIR_USER_CHECK(!impl_->pumping) << "RPC: the connection to " << impl_->peer << " is already pumped";
    impl_->pumping = true;
  }
  if (on_started) on_started();
  Impl &c = *impl_;
  std::string why;
  beast::flat_buffer buffer;
  // In pieces, as receive_message() reads, so that an oversized frame is refused with an
  // error frame the peer gets to read.
  std::function<void()> read_next = [&] {
    c.ws.async_read_some(buffer, size_t(1) << 20, [&](boost::system::error_code ec, size_t) {
      if (ec) {
        why = "the connection closed (" + ec.message() + ")";
        c.shut_down();
        return;
      }
      if (buffer.size() > c.max_frame_bytes) {
        why = "a frame larger than the limit of " + std::to_string(c.max_frame_bytes) + " bytes was refused";
        c.outbox.push_back(encode_frame(error_header(nullptr, "RPC: " + why + "; the connection is closed")));
        c.drain_when_sent = c.close_when_sent = true;
        c.write_next();
        return;
      }
      if (!c.ws.is_message_done()) return read_next();
      if (!c.ws.got_binary()) {
        why = "a text message; frames are binary messages (docs/rpc.md)";
        c.shut_down();
        return;
      }
      const auto data = buffer.data();
      std::string message(static_cast<const char *>(data.data()), data.size());
      buffer.consume(buffer.size());
      try {
        on_message(std::move(message));
      } catch (const std::exception &e) {
        why = e.what();
        c.shut_down();
        return;
      }
      if (!c.closed) read_next();
    });
  };
  net::post(c.ioc, read_next);
  c.ioc.run();
  {
    std::lock_guard<std::mutex> lock(impl_->write_mu);
    impl_->closed = true;
    boost::system::error_code ec;
    impl_->ws.next_layer().close(ec);
  }
  return why.empty() ? "the connection closed" : why;
}

bool Connection::closed() const { return impl_->closed; }
const std::string &Connection::peer() const { return impl_->peer; }

struct Listener::Impl {
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::atomic<bool> stopping{false};
  uint64_t max_frame_bytes = kDefaultMaxFrameBytes;
  std::string address;
  bool loopback = true;
};

Listener::Listener(const std::string &host, int port, uint64_t max_frame_bytes) : impl_(std::make_unique<Impl>()) {
  // Checked here: the resolver would take 70000 as 70000 mod 65536.
  TIR_USER_CHECK(!host.empty()) << "RPC: the address to listen on is empty; give one such as 127.0.0.1";
  TIR_USER_CHECK(port >= 0 && port <= 65535)
      << "RPC: cannot listen on " << join_address(host, port) << ": the port must be from 0 (any free port) to 65535";
  impl_->max_frame_bytes = max_frame_bytes;
  impl_->address = join_address(host, port);
  impl_->loopback = is_loopback(host);
  tcp::endpoint ep;
  try {
    tcp::resolver resolver(impl_->ioc);
    ep = *resolver.resolve(host, std::to_string(port)).begin();
  } catch (const std::exception &e) {
    TIR_THROW() << "RPC: cannot listen on " << impl_->address << ": the address '" << host << "' cannot be resolved ("
                << e.what() << "); give one such as 127.0.0.1";
  }
  try {
    impl_->acceptor.open(ep.protocol());
    impl_->acceptor.set_option(net::socket_base::reuse_address(true));
    impl_->acceptor.bind(ep);
    impl_->acceptor.listen();
  } catch (const boost::system::system_error &e) {
    TIR_THROW() << "RPC: cannot listen on " << impl_->address << ": " << e.what()
                << (e.code() == net::error::address_in_use
                        ? " (another process on that port? choose another with --port)"
                    : e.code() == boost::system::errc::address_not_available
                        ? " ('" + host + "' is not an address of this machine; give one such as 127.0.0.1)"
                        : std::string());
  }
}

Listener::~Listener() { stop(); }

int Listener::port() const { return impl_->acceptor.local_endpoint().port(); }

namespace {

// Why a WebSocket upgrade from a browser page is refused (see connection.h), or "".
std::string refuse_origin(const http::request<http::string_body> &req, bool loopback) {
  const std::string origin(req[http::field::origin]);
  if (origin.empty()) return "";  // not a browser: the C++ client, a server
  const std::string host(req[http::field::host]);
  if (origin != "http://" + host && origin != "https://" + host)
    return "WebSocket connections from pages of another origin (" + origin + ") are refused";
  const std::string name = host.substr(0, host.rfind(':'));
  if (loopback && !is_loopback(name))
    return "WebSocket connections through the name '" + name + "' are refused; open the page as http://127.0.0.1:PORT/";
  return "";
}

void serve_one(tcp::socket socket, uint64_t max_frame_bytes, bool loopback, const Listener::HttpHandler &on_http,
               const Listener::SocketHandler &on_socket) {
  std::string peer;
  try {
    peer = socket.remote_endpoint().address().to_string() + ":" + std::to_string(socket.remote_endpoint().port());
    beast::flat_buffer buffer;
    http::request<http::string_body> req;
    http::read(socket, buffer, req);
    std::string refused;
    if (websocket::is_upgrade(req) && (refused = refuse_origin(req, loopback)).empty()) {
      auto impl = std::make_unique<Connection::Impl>();
      impl->max_frame_bytes = max_frame_bytes;
      impl->peer = peer;
      // The socket moves to the connection's own io_context: the listener's may go first.
      const tcp::endpoint local = socket.local_endpoint();
      impl->ws.next_layer().assign(local.protocol(), socket.release());
      impl->configure();
      impl->ws.accept(req);
      on_socket(std::make_unique<Connection>(std::move(impl)));
      return;
    }
    HttpResponse r;
    if (!refused.empty()) {
      r = {403, "text/plain; charset=utf-8", refused + "\n", {}};
    } else if (req.method() != http::verb::get && req.method() != http::verb::head) {
      r = {405, "text/plain; charset=utf-8", "only GET is served here\n", {}};
    } else {
      try {
        r = on_http(std::string(req.target()));
      } catch (const std::exception &e) {
        r = {500, "text/plain; charset=utf-8", std::string(e.what()) + "\n", {}};
      }
    }
    http::response<http::string_body> res{http::status(r.status), req.version()};
    res.set(http::field::content_type, r.content_type);
    res.set(http::field::cache_control, "no-store");
    for (const auto &[name, value] : r.headers) res.set(name, value);
    res.keep_alive(false);
    res.body() = std::move(r.body);
    res.prepare_payload();
    http::write(socket, res);
    boost::system::error_code ec;
    socket.shutdown(tcp::socket::shutdown_send, ec);
  } catch (const std::exception &) {
    // A client that went away or spoke no HTTP ends only its own connection.
  }
}

}  // namespace

void Listener::serve(const HttpHandler &on_http, const SocketHandler &on_socket) {
  while (!impl_->stopping) {
    tcp::socket socket(impl_->ioc);
    boost::system::error_code ec;
    impl_->acceptor.accept(socket, ec);
    if (ec) {
      if (impl_->stopping) break;
      continue;
    }
    // Detached: a connection ends when its peer goes or the process exits.
    std::thread(serve_one, std::move(socket), impl_->max_frame_bytes, impl_->loopback, on_http, on_socket).detach();
  }
}

void Listener::stop() noexcept {
  if (impl_->stopping.exchange(true)) return;
  // accept() blocked in serve() returns once the socket is shut down.
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
}

}  // namespace tensorir::rpc
