// The frames of the RPC protocol (docs/rpc.md): "TRPC", the header's length, a JSON
// header, a binary payload; one frame per binary WebSocket message.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tensorir::rpc {

inline constexpr char kFrameMagic[4] = {'T', 'R', 'P', 'C'};

struct Frame {
  nlohmann::json header;  // always an object with a string "type"
  std::string payload;
};

// One message's bytes.
std::string encode_frame(const nlohmann::json &header, std::string_view payload = {});
// Throws tensorir::Error saying what is wrong with a message that is not a frame: a
// short message, another magic, a header length beyond the message, a header that is
// not a JSON object with a string "type".
Frame decode_frame(std::string_view message);
// The header alone, with the same checks.
nlohmann::json decode_header(std::string_view message);

// Checks a connection's first frame (`register` or `connect`): its "v" is kProtocolVersion
// (tensorir/rpc.h) and, where `token` is not empty, its "token" is `token`. Throws an
// Error to send back.
void check_hello(const nlohmann::json &header, const std::string &token);

// {"type":"error","id":id,"message":message}; id null when no request is answered.
nlohmann::json error_header(const nlohmann::json &id, const std::string &message);

}  // namespace tensorir::rpc
