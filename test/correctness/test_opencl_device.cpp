// Arrays on Device::opencl(): copies to, from and between them, zero-filled storage, and
// views (sub-buffers) at offsets the device aligns them to. Without an OpenCL platform
// every case fails with the reason.
#include <cstdint>
#include <vector>

#include "correctness/reference.h"

using namespace tensorir;
using namespace tensorir::testing;
using Catch::Contains;

TEST_CASE("opencl device: copies and zero-filled storage", "[correctness][opencl]") {
  const Device dev = Device::opencl();
  CHECK(dev.str() == "opencl(0)");
  NDArray zeros = NDArray::empty({37}, Float(32), dev).to(Device::cpu());
  CHECK(zeros.to_vector<float>() == std::vector<float>(37, 0.0f));
  NDArray a = random_array<float>({5, 7}, 11);
  NDArray on = a.to(dev);
  NDArray copy = on.to(dev);  // device to device
  CHECK(copy.device() == dev);
  CHECK(copy.to(Device::cpu()).to_vector<float>() == a.to_vector<float>());
  NDArray bytes = NDArray::empty({0}, UInt(8), dev);  // no bytes: still a buffer
  CHECK(bytes.to(Device::cpu()).numel() == 0);
}

TEST_CASE("opencl device: views at aligned offsets share the buffer", "[correctness][opencl]") {
  const Device dev = Device::opencl();
  const int64_t n = 2048;
  NDArray base = random_array<float>({n}, 12).to(dev);
  // Sub-buffers start at the device's base address alignment (at most 4 KiB in practice).
  const size_t offset = 4096;
  NDArray whole = base.view({n}, Float(32), 0);
  CHECK(whole.to(Device::cpu()).to_vector<float>() == base.to(Device::cpu()).to_vector<float>());
  // Written through the view, seen through the base, and the other way round.
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[size_t(i)] = 1.0f + float(i);
  NDArray part = base.view({16}, Float(32), offset);
  part.copy_from_bytes(values.data(), values.size() * sizeof(float));
  std::vector<float> after = base.to(Device::cpu()).to_vector<float>();
  CHECK(std::vector<float>(after.begin() + offset / 4, after.begin() + offset / 4 + 16) == values);
  std::vector<float> fresh(n, -2.0f);
  base.copy_from_bytes(fresh.data(), fresh.size() * sizeof(float));
  CHECK(part.to(Device::cpu()).to_vector<float>() == std::vector<float>(16, -2.0f));
  CHECK_THROWS_WITH(base.view({2}, Float(32), 4), Contains("no view at offset 4") && Contains("OpenCL"));
}
