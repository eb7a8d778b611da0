// Serving a session's frames on one connection, after its handshake: requests go to an
// Executor, "close" frees the session, "open" (from a proxy) starts a new one.
#pragma once
#include <optional>
#include <string>

#include "rpc/connection.h"
#include "rpc/server/executor.h"

namespace tensorir::rpc::server {

// The next frame on `conn`, or nothing when the connection has ended: the peer went
// away, or sent a message that is not a frame or is too large, which was answered with
// an `error` before closing. Never throws.
std::optional<Frame> next_frame(Connection &conn, const std::string &log);

// Returns when the connection ends: the peer went away, or sent a frame that is
// malformed or too large (then it was answered with an `error` and closed). Never throws.
// `log` names the peer in what is written to stderr.
void serve_session(Connection &conn, Executor &executor, const std::string &log);

// Writes "tensorir rpc server: <what>" to stderr, whole lines from any thread.
void log_line(const std::string &what);

}  // namespace tensorir::rpc::server
