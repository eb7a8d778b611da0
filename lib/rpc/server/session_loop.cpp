// The frame loop of a session (session_loop.h).
#include "rpc/server/session_loop.h"

#include "tensorir/error.h"

namespace tensorir::rpc::server {

std::optional<Frame> next_frame(Connection &conn, const Log &log, const std::string &peer) {
  try {
    return conn.receive();
  } catch (const std::exception &e) {
    if (!conn.closed()) {
      try {
        conn.send(error_header(nullptr, std::string(e.what()) + "; the connection is closed"));
      } catch (...) {
      }
      conn.close();
    }
    if (log) log(peer + ": " + e.what());
    return std::nullopt;
  }
}

void serve_session(Connection &conn, Executor &executor, const Log &log, const std::string &peer) {
  while (std::optional<Frame> frame = next_frame(conn, log, peer)) {
    const std::string type = frame->header["type"].get<std::string>();
    std::optional<Frame> answer;
    if (type == "request") {
      answer = executor.handle(*frame);
    } else if (type == "open") {
      executor.reset();
    } else if (type == "close") {
      // Answered once every earlier request is done: the proxy pairs this remote again
      // only then, so no late reply of the ended session reaches the next client.
      executor.reset();
      answer = Frame{{{"type", "closed"}}, {}};
    } else {
      answer = Frame{error_header(frame->header.value("id", nlohmann::json()),
                                  "a frame of type '" + type + "' was not expected during a session; send "
                                  "\"request\" frames (docs/rpc.md)"),
                     {}};
    }
    if (!answer) continue;
    try {
      conn.send(answer->header, answer->payload);
    } catch (const std::exception &e) {
      if (log) log(peer + ": " + e.what());
      return;
    }
  }
}

}  // namespace tensorir::rpc::server
