// Where an NDArray's storage lives.
#pragma once
#include <ostream>
#include <string>

namespace tensorir {

struct Device {
  // Remote: storage on the far side of an RPC session (rpc::Session::device); its id
  // names the session and the remote device, and means nothing outside that session.
  enum Kind { CPU = 1, OpenCL = 4, OpenGL = 11, Remote = 64 };
  Kind kind = CPU;
  int id = 0;

  static Device cpu(int id = 0) { return {CPU, id}; }
  static Device opengl(int id = 0) { return {OpenGL, id}; }
  // The id-th OpenCL device, counted over all platforms in the order the ICD loader lists them.
  static Device opencl(int id = 0) { return {OpenCL, id}; }
  bool is(Kind k) const { return kind == k; }
  bool is_cpu() const { return is(CPU); }
  bool operator==(const Device &o) const { return kind == o.kind && id == o.id; }
  bool operator!=(const Device &o) const { return !(*this == o); }
  std::string str() const;
};

inline std::ostream &operator<<(std::ostream &os, const Device &d) { return os << d.str(); }

}  // namespace tensorir
