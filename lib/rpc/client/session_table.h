// The process-wide table of RPC sessions, by serial number. An array on a remote device
// (Device::Remote) holds only its Device and a handle; the Device's id names the session
// and the remote's device, and the table finds the session from it without keeping it
// alive: when the session closes or goes, its arrays throw on use and free nothing.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tensorir/runtime/device.h"

namespace tensorir::rpc {

class SessionImpl;

// Device ids are serial * kMaxRemoteDevices + the device's index in the remote's info.
inline constexpr int kMaxRemoteDevices = 64;

// Adds a session; returns its serial (from 1). `label` and `device_names` describe it in
// messages, also after it closed.
int register_session(const std::shared_ptr<SessionImpl> &session, const std::string &label,
                     const std::vector<std::string> &device_names);
Device remote_device(int serial, int index);
int device_index(Device dev);
bool same_session(Device a, Device b);

// The open session of `dev`; throws "the RPC session ... is closed" when it is closed or gone.
std::shared_ptr<SessionImpl> session_of(Device dev);
// The open session of `dev`, or nullptr: for frees, which never throw.
std::shared_ptr<SessionImpl> find_session(Device dev) noexcept;
// "device 'wasm' of remote 'browser' at 127.0.0.1:9190 (RPC session 2)".
std::string describe_device(Device dev);

}  // namespace tensorir::rpc
