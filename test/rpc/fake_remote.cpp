// The test's own remote (fake_remote.h).
#include "rpc/fake_remote.h"

#include <chrono>
#include <cstring>

namespace tensorir::rpc_test {

struct FakeRemote::State {
  mutable std::mutex mu;
  mutable std::condition_variable cv;
  json info;
  Handler handler;
  std::string refusal;
  std::vector<json> frames;
  int closed = 0;

  void record(const Frame &f) {
    json h = f.header;
    h["payload_bytes"] = f.payload.size();
    std::lock_guard<std::mutex> lock(mu);
    frames.push_back(h);
  }

  void serve(Connection &c) {
    Frame hello = c.receive();
    record(hello);
    std::string refusal_now;
    {
      std::lock_guard<std::mutex> lock(mu);
      refusal_now = refusal;
    }
    if (!refusal_now.empty()) {
      c.send({{"type", "error"}, {"id", nullptr}, {"message", refusal_now}});
      return;
    }
    c.send({{"type", "connected"}, {"info", info}});
    Store store;
    for (;;) {
      Frame f = c.receive();
      record(f);
      if (!handler(c, f, store)) return;
    }
  }
};

FakeRemote::FakeRemote(json info, Handler handler) : state_(std::make_shared<State>()) {
  state_->info = std::move(info);
  state_->handler = std::move(handler);
  listener_ = std::make_unique<rpc::Listener>("127.0.0.1", 0);
  port_ = listener_->port();
  std::shared_ptr<State> state = state_;  // connection threads may outlive this object
  const auto no_pages = [](const std::string &) {
    rpc::HttpResponse r;
    r.status = 404;
    return r;
  };
  thread_ = std::thread([this, state, no_pages] {
    listener_->serve(no_pages,
                     [state](std::unique_ptr<Connection> c) {
                       try {
                         state->serve(*c);
                       } catch (const std::exception &) {
                         // the client went away
                       }
                       c->close();
                       std::lock_guard<std::mutex> lock(state->mu);
                       ++state->closed;
                       state->cv.notify_all();
                     });
  });
}

FakeRemote::~FakeRemote() {
  listener_->stop();
  thread_.join();
}

void FakeRemote::refuse(const std::string &message) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->refusal = message;
}

std::vector<json> FakeRemote::frames() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->frames;
}

std::vector<json> FakeRemote::requests(const std::string &op) const {
  std::vector<json> out;
  for (const json &f : frames())
    if (f.value("op", "") == op) out.push_back(f);
  return out;
}

bool FakeRemote::wait_closed(int n) const {
  std::unique_lock<std::mutex> lock(state_->mu);
  return state_->cv.wait_for(lock, std::chrono::seconds(20), [&] { return state_->closed >= n; });
}

json FakeRemote::default_info() {
  return {{"remote", "server"},
          {"devices", {{{"name", "llvm"}, {"cpu", "test"}}, {{"name", "wasm"}, {"threads", 1}}}}};
}

void FakeRemote::reply(Connection &c, const json &request, json fields, const std::string &payload) {
  fields["type"] = "reply";
  fields["id"] = request["id"];
  c.send(fields, payload);
}

namespace {

// c = a + b over float32 arrays of the store: what the test's "add" kernels compute.
void add_arrays(Store &store, const json &args) {
  const std::string &a = store.arrays.at(args[0]["handle"].get<int64_t>());
  const std::string &b = store.arrays.at(args[1]["handle"].get<int64_t>());
  std::string &c = store.arrays.at(args[2]["handle"].get<int64_t>());
  for (size_t i = 0; i + 4 <= c.size(); i += 4) {
    float x, y;
    std::memcpy(&x, a.data() + i, 4);
    std::memcpy(&y, b.data() + i, 4);
    const float z = x + y;
    std::memcpy(c.data() + i, &z, 4);
  }
}

}  // namespace

bool FakeRemote::serve_store(Connection &c, const Frame &f, Store &store) {
  const json &h = f.header;
  const std::string op = h.value("op", "");
  if (op == "free") {
    for (const json &handle : h["handles"]) store.arrays.erase(handle.get<int64_t>());
    return true;
  }
  if (op == "free_module" || op == "free_model") return true;
  if (op == "info") {
    reply(c, h, {{"info", {{"remote", "fake"}, {"live", {{"arrays", store.arrays.size()}}}}}});
    return true;
  }
  if (op == "alloc") {
    const int64_t handle = h["handle"].get<int64_t>();
    store.arrays[handle] = std::string(h["nbytes"].get<size_t>(), '\0');
    store.devices[handle] = h["device"].get<std::string>();
  } else if (op == "write") {
    std::string &a = store.arrays.at(h["handle"].get<int64_t>());
    a.replace(h["offset"].get<size_t>(), f.payload.size(), f.payload);
  } else if (op == "read") {
    const std::string &a = store.arrays.at(h["handle"].get<int64_t>());
    reply(c, h, json::object(), a.substr(h["offset"].get<size_t>(), h["nbytes"].get<size_t>()));
    return true;
  } else if (op == "load_module") {
    store.modules[h["module"].get<int64_t>()] = h;
    json names = json::array();
    for (const json &sig : h["functions"]) names.push_back(sig["name"]);
    reply(c, h, {{"functions", names}});
    return true;
  } else if (op == "call" || op == "time") {
    if (h["function"] != "add") {
      c.send({{"type", "error"}, {"id", h["id"]}, {"message", "no function " + h["function"].dump()}});
      return true;
    }
    add_arrays(store, h["args"]);
    if (op == "time") {
      json times = json::array();
      for (int r = 0; r < h["repeat"].get<int>(); ++r) times.push_back(1.0 + r);
      reply(c, h, {{"times_ms", times}});
      return true;
    }
  } else {
    c.send({{"type", "error"}, {"id", h["id"]}, {"message", "the test's remote has no op '" + op + "'"}});
    return true;
  }
  reply(c, h);
  return true;
}

}  // namespace tensorir::rpc_test
