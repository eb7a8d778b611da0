// Encoding and checking frames (protocol.h).
#include "rpc/protocol.h"

#include <cstring>

#include "support/json_parse.h"
#include "tensorir/error.h"
#include "tensorir/rpc.h"

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

namespace {

// The header's length, after checking that the message can hold it.
uint32_t header_length(std::string_view message) {
  TIR_USER_CHECK(message.size() >= 8) << "RPC: a message of " << message.size()
                                      << " bytes is not a frame (a frame has at least 8: \"TRPC\" and a length)";
  TIR_USER_CHECK(std::memcmp(message.data(), kFrameMagic, 4) == 0)
      << "RPC: a message that does not start with \"TRPC\" is not a frame of this protocol";
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= uint32_t(uint8_t(message[size_t(4 + i)])) << (8 * i);
  TIR_USER_CHECK(uint64_t(n) <= message.size() - 8)
      << "RPC: a frame's header length (" << n << " bytes) runs past the end of its " << message.size()
      << "-byte message";
  return n;
}

}  // namespace

nlohmann::json decode_header(std::string_view message) {
  const uint32_t n = header_length(message);
  nlohmann::json header;
  try {
    header = support::parse_json<nlohmann::json>(message.substr(8, n));
  } catch (const nlohmann::json::exception &) {
    header = nullptr;  // not JSON: said below
  } catch (const Error &e) {
    TIR_THROW() << "RPC: a frame's header is " << e.what();
  }
  TIR_USER_CHECK(header.is_object() && header.contains("type") && header["type"].is_string())
      << "RPC: a frame's header is not a JSON object with a string \"type\"";
  return header;
}

Frame decode_frame(std::string_view message) {
  Frame f;
  f.header = decode_header(message);
  f.payload.assign(message.substr(8 + size_t(header_length(message))));
  return f;
}

void check_hello(const nlohmann::json &header, const std::string &token) {
  const auto v = header.find("v");
  TIR_USER_CHECK(v != header.end() && v->is_number_integer())
      << "RPC: the first frame (\"" << header["type"].get<std::string>()
      << "\") has no protocol version \"v\"; this end speaks version " << kProtocolVersion;
  TIR_USER_CHECK(v->get<int64_t>() == kProtocolVersion)
      << "RPC: protocol version " << v->get<int64_t>() << " is not spoken here (this end speaks version " << kProtocolVersion
      << "); use a client and remote of the same tensorir release";
  if (token.empty()) return;
  const auto t = header.find("token");
  TIR_USER_CHECK(t != header.end() && t->is_string() && t->get<std::string>() == token)
      << "RPC: wrong or missing token; this end was started with --token and accepts only peers that present it";
}

nlohmann::json error_header(const nlohmann::json &id, const std::string &message) {
  return {{"type", "error"}, {"id", id}, {"message", message}};
}

}  // namespace tensorir::rpc
