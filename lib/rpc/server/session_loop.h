// Serving a session's frames on one connection, after its handshake: requests go to an
// Executor, "close" frees the session and is answered "closed", "open" (from a proxy)
// starts a new one.
#pragma once
#include <optional>
#include <string>

#include "rpc/connection.h"
#include "rpc/server/executor.h"

namespace tensorir::rpc::server {

// The next frame on `conn`, or nothing when the connection has ended: the peer went
// away, or sent a message that is not a frame or is too large, which was answered with
// an `error` before closing, and logged with `peer` ("client 127.0.0.1:5000"). Never throws.
std::optional<Frame> next_frame(Connection &conn, const Log &log, const std::string &peer);

// Returns when the connection ends: the peer went away, or sent a frame that is
// malformed or too large (then it was answered with an `error` and closed). Never throws.
void serve_session(Connection &conn, Executor &executor, const Log &log, const std::string &peer);

}  // namespace tensorir::rpc::server
