// The table of RPC sessions (session_table.h).
#include "rpc/client/session_table.h"

#include <map>
#include <mutex>

#include "rpc/client/session_impl.h"
#include "tensorir/error.h"

namespace tensorir::rpc {

namespace {

struct Entry {
  std::weak_ptr<SessionImpl> session;
  std::string label;
  std::vector<std::string> device_names;
};

// Entries stay after their session goes (a label and names): arrays that outlive their
// session still say which one it was.
struct Table {
  std::mutex mu;
  std::map<int, Entry> entries;
  int next_serial = 1;
};

Table &table() {
  static Table *t = new Table;  // never destroyed: arrays may be freed during exit
  return *t;
}

int serial_of(Device dev) { return dev.id / kMaxRemoteDevices; }

}  // namespace

int register_session(const std::shared_ptr<SessionImpl> &session, const std::string &label,
                     const std::vector<std::string> &device_names) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  TIR_USER_CHECK(t.next_serial < INT32_MAX / kMaxRemoteDevices)
      << "RPC: this process has opened " << t.next_serial - 1 << " sessions, the most it can number";
  const int serial = t.next_serial++;
  t.entries[serial] = {session, label, device_names};
  return serial;
}

Device remote_device(int serial, int index) { return {Device::Remote, serial * kMaxRemoteDevices + index}; }
int device_index(Device dev) { return dev.id % kMaxRemoteDevices; }
bool same_session(Device a, Device b) { return a.is(Device::Remote) && b.is(Device::Remote) && serial_of(a) == serial_of(b); }

std::shared_ptr<SessionImpl> find_session(Device dev) noexcept {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.entries.find(serial_of(dev));
  if (it == t.entries.end()) return nullptr;
  std::shared_ptr<SessionImpl> s = it->second.session.lock();
  return s && !s->closed() ? s : nullptr;
}

std::shared_ptr<SessionImpl> session_of(Device dev) {
  std::shared_ptr<SessionImpl> s = find_session(dev);
  if (s) return s;
  {
    Table &t = table();
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.entries.find(serial_of(dev));
    TIR_USER_CHECK(it != t.entries.end())
        << "RPC: " << dev << " belongs to no RPC session of this process; make remote arrays on a session's "
        << "device (rpc::Session::device)";
    s = it->second.session.lock();
    if (!s)
      TIR_THROW() << "the RPC session with " << it->second.label << " is closed (its last handle went), so " << dev
                  << " and its arrays are gone; connect again with rpc::connect";
  }
  s->check_open();  // throws, saying why it closed
  return s;
}

std::string describe_device(Device dev) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.entries.find(serial_of(dev));
  if (!dev.is(Device::Remote) || it == t.entries.end()) return dev.str();
  const Entry &e = it->second;
  const int index = device_index(dev);
  const std::string name = index < int(e.device_names.size()) ? e.device_names[size_t(index)] : "?";
  return "device '" + name + "' of " + e.label + " (RPC session " + std::to_string(it->first) + ")";
}

}  // namespace tensorir::rpc
