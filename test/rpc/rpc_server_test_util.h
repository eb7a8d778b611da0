// Helpers of the server tests: request frames, answers checked by type, a module saved
// as the shared library a client sends.
#pragma once
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "rpc/protocol.h"
#include "rpc/server/executor.h"
#include "rpc/signature_json.h"
#include "tensorir/runtime/module.h"

namespace tensorir::rpc_test {

// A frame whose header is `header` as it is (JSON or not), without a payload.
inline std::string raw_frame(const std::string &header) {
  std::string f = "TRPC";
  for (int i = 0; i < 4; ++i) f.push_back(char((header.size() >> (8 * i)) & 0xff));
  return f + header;
}

// JSON arrays nested `depth` deep: enough, at 100000, to overflow the stack of what copies
// or prints them recursively.
inline std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A fresh folder under the system's temporary one, removed with the object.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string &name)
      : path(std::filesystem::temp_directory_path() / ("tensorir_rpc_" + std::to_string(getpid()) + "_" + name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str(const std::string &file) const { return (path / file).string(); }
};

inline std::string file_bytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return std::string(std::istreambuf_iterator<char>(f), {});
}

inline rpc::Frame request(int64_t id, const std::string &op, nlohmann::json fields = nlohmann::json::object(),
                          std::string payload = {}) {
  fields["type"] = "request";
  fields["id"] = id;
  fields["op"] = op;
  return {fields, std::move(payload)};
}

// The load_module request of `m`, saved with Module::save(path, "so"), as handle `handle`.
inline rpc::Frame load_module_request(int64_t id, int64_t handle, const Module &m) {
  ScratchDir dir("module");
  m.save(dir.str("m.so"), "so");
  nlohmann::json functions = nlohmann::json::array();
  for (const std::string &name : m.function_names()) functions.push_back(rpc::signature_to_json(m(name).signature()));
  return request(id, "load_module",
                 {{"module", handle}, {"format", "so"}, {"target", "llvm"}, {"functions", functions}},
                 file_bytes(dir.str("m.so")));
}

// A buffer argument of call and time.
inline nlohmann::json buffer_arg(int64_t handle, const std::vector<int64_t> &shape, const std::string &dtype) {
  return {{"handle", handle}, {"shape", shape}, {"dtype", dtype}};
}

// An executor with the host's device only, as every server has.
inline rpc::server::Executor make_executor() {
  const std::vector<rpc::server::ServerDevice> devices = {rpc::server::host_device()};
  return rpc::server::Executor(devices, rpc::server::server_info(devices));
}

// The answer to `f` (which must have one); its payload in `payload`.
inline nlohmann::json answer(rpc::server::Executor &ex, const rpc::Frame &f, std::string *payload = nullptr) {
  const std::optional<rpc::Frame> a = ex.handle(f);
  REQUIRE(a.has_value());
  CHECK(a->header["id"] == f.header["id"]);
  if (payload) *payload = a->payload;
  return a->header;
}

// The answer to `f`, which must be a reply.
inline nlohmann::json ok(rpc::server::Executor &ex, const rpc::Frame &f, std::string *payload = nullptr) {
  const nlohmann::json a = answer(ex, f, payload);
  INFO(a.dump());
  REQUIRE(a["type"] == "reply");
  return a;
}

// The message of the error that answers `f`.
inline std::string error_of(rpc::server::Executor &ex, const rpc::Frame &f) {
  const nlohmann::json a = answer(ex, f);
  INFO(a.dump());
  REQUIRE(a["type"] == "error");
  return a["message"].get<std::string>();
}

inline std::string bytes_of(const NDArray &a) {
  std::string s(a.nbytes(), '\0');
  a.copy_to_bytes(s.data(), s.size());
  return s;
}

}  // namespace tensorir::rpc_test
