// Dispatching a session's requests (executor.h); the ops live in executor_*.cpp.
#include "rpc/server/executor.h"

#include "rpc/server/request.h"
#include "tensorir/error.h"
#include "tensorir/rpc.h"

namespace tensorir::rpc::server {

std::string handle_str(const char *kind, int64_t handle) { return std::string(kind) + " " + std::to_string(handle); }

Executor::Executor(std::vector<ServerDevice> devices, nlohmann::json info, Log log)
    : devices_(std::move(devices)), info_(std::move(info)), log_(std::move(log)) {}

std::optional<Frame> Executor::handle(const Frame &request) {
  const auto id_it = request.header.find("id");
  const nlohmann::json id = id_it == request.header.end() ? nlohmann::json() : *id_it;
  const auto op_it = request.header.find("op");
  const std::string op = op_it != request.header.end() && op_it->is_string() ? op_it->get<std::string>() : "";
  const bool no_reply = op == "free" || op == "free_module" || op == "free_model";
  std::string message;
  try {
    const Request r(request.header, request.payload);
    Reply reply = dispatch(r);
    if (no_reply) return std::nullopt;
    reply.fields["type"] = "reply";
    reply.fields["id"] = id;
    return Frame{std::move(reply.fields), std::move(reply.payload)};
  } catch (const std::exception &e) {
    // std::bad_alloc and the like end only this request, as tensorir::Error does.
    message = e.what();
  }
  if (no_reply) {
    if (log_) log_(message + " (request " + id.dump() + ", which has no answer)");
    return std::nullopt;
  }
  return Frame{error_header(id, message), {}};
}

Executor::Reply Executor::dispatch(const Request &r) {
  using Op = Reply (Executor::*)(const Request &);
  static const std::map<std::string, Op> ops = {
      {"info", &Executor::info},           {"alloc", &Executor::alloc},
      {"free", &Executor::free},           {"write", &Executor::write},
      {"read", &Executor::read},           {"load_module", &Executor::load_module},
      {"free_module", &Executor::free_module}, {"call", &Executor::call},
      {"time", &Executor::time},           {"load_model", &Executor::load_model},
      {"free_model", &Executor::free_model},   {"run_model", &Executor::run_model},
      {"profile_model", &Executor::profile_model}, {"time_model", &Executor::time_model},
  };
  const auto it = ops.find(r.op());
  if (it == ops.end()) {
    std::string names;
    for (const auto &[name, fn] : ops) names += (names.empty() ? "" : ", ") + name;
    TIR_THROW() << "unknown op '" << r.op() << "'; this server (protocol version " << kProtocolVersion
                << ") answers: " << names;
  }
  return (this->*(it->second))(r);
}

Executor::Reply Executor::info(const Request &) {
  nlohmann::json info = info_;
  info["live"] = live();
  return {{{"info", info}}, {}};
}

void Executor::reset() {
  models_.clear();
  modules_.clear();
  arrays_.clear();
}

nlohmann::json Executor::live() const {
  return {{"arrays", arrays_.size()}, {"modules", modules_.size()}, {"models", models_.size()}};
}

}  // namespace tensorir::rpc::server
