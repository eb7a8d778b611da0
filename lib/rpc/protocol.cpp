// Encoding and checking frames (protocol.h).
#include "rpc/protocol.h"

#include <cstring>

#include "tensorir/error.h"

namespace tensorir::rpc {

std::string encode_frame(const nlohmann::json &header, std::string_view payload) {
  const std::string text = header.dump();
  const uint32_t n = uint32_t(text.size());
  std::string out;
  out.reserve(8 + text.size() + payload.size());
  out.append(kFrameMagic, 4);
  for (int i = 0; i < 4; ++i) out.push_back(char((n >> (8 * i)) & 0xff));
  out += text;
  out.append(payload.data(), payload.size());
  return out;
}

Frame decode_frame(std::string_view message) {
  TIR_USER_CHECK(message.size() >= 8) << "RPC: a message of " << message.size()
                                      << " bytes is not a frame (a frame has at least 8: \"TRPC\" and a length)";
  TIR_USER_CHECK(std::memcmp(message.data(), kFrameMagic, 4) == 0)
      << "RPC: a message that does not start with \"TRPC\" is not a frame of this protocol";
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= uint32_t(uint8_t(message[size_t(4 + i)])) << (8 * i);
  TIR_USER_CHECK(uint64_t(n) <= message.size() - 8)
      << "RPC: a frame's header length (" << n << " bytes) runs past the end of its " << message.size()
      << "-byte message";
  Frame f;
  f.header = nlohmann::json::parse(message.substr(8, n), nullptr, /*allow_exceptions=*/false);
  TIR_USER_CHECK(f.header.is_object() && f.header.contains("type") && f.header["type"].is_string())
      << "RPC: a frame's header is not a JSON object with a string \"type\"";
  f.payload.assign(message.substr(8 + size_t(n)));
  return f;
}

nlohmann::json error_header(const nlohmann::json &id, const std::string &message) {
  return {{"type", "error"}, {"id", id}, {"message", message}};
}

}  // namespace tensorir::rpc
