// Device names and the per-kind registry of device APIs, with the CPU's built in.
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "runtime/device_api.h"
#include "tensorir/error.h"

namespace tensorir {

std::string Device::str() const {
  std::string name;
  switch (kind) {
    case CPU: name = "cpu"; break;
    case OpenGL: name = "opengl"; break;
    case OpenCL: name = "opencl"; break;
    case Remote: name = "remote"; break;
    default: name = "device" + std::to_string(static_cast<int>(kind)); break;
  }
  return name + "(" + std::to_string(id) + ")";
}

namespace {

constexpr size_t kAlignment = 64;
// Arrays of a huge page or more start on one and ask the kernel for huge pages (where
// transparent huge pages are "madvise", Debian's default, none are given unasked). A
// kernel that strides across a large matrix, as a GEMM packing B's columns into panels
// (a row every 8 KB at 2048), then misses the TLB once per 2 MiB instead of once per
// 4 KiB page: SGEMM 2048 on two Zen 5 cores went from 404-414 to 432-442 GFLOP/s (and
// oneDNN, reading the same arrays, from 402 to 426-437).
constexpr size_t kHugePage = size_t(2) << 20;

class CPUDeviceAPI final : public DeviceAPI {
 public:
  void *alloc(Device dev, size_t nbytes) override {
    const size_t align = nbytes >= kHugePage ? kHugePage : kAlignment;
    // Whole vectors of 64 bytes (never 0); the part of a last huge page past them stays
    // unasked-for, so that it costs no memory.
    size_t size = nbytes == 0 ? kAlignment : (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    TIR_USER_CHECK(size >= nbytes) << "cannot allocate " << nbytes << " bytes on " << dev;
    void *p = nullptr;
    TIR_USER_CHECK(::posix_memalign(&p, align, size) == 0 && p != nullptr)
        << "out of memory: cannot allocate " << nbytes << " bytes on " << dev;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == kHugePage) ::madvise(p, size, MADV_HUGEPAGE);  // advice only: no huge pages is fine
#endif
    std::memset(p, 0, size);  // the pages are faulted in here, huge where the kernel can
    return p;
  }
  void free(Device, void *data) noexcept override { std::free(data); }
  void copy(const void *src, Device, void *dst, Device, size_t nbytes) override {
    if (nbytes > 0) std::memmove(dst, src, nbytes);
  }
};

struct Registry {
  std::mutex mu;
  std::map<int, DeviceAPI *> apis;
};

// Function-local so that registrations from other files' static initialisers are safe.
Registry &registry() {
  static Registry *r = [] {
    auto *reg = new Registry;
    static CPUDeviceAPI cpu;
    reg->apis[Device::CPU] = &cpu;
    return reg;
  }();
  return *r;
}

}  // namespace

void register_device_api(Device::Kind kind, DeviceAPI *api) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.apis[kind] = api;
}

DeviceAPI *find_device_api(Device::Kind kind) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.apis.find(kind);
  return it == r.apis.end() ? nullptr : it->second;
}

DeviceAPI &device_api(Device dev) {
  DeviceAPI *api = find_device_api(dev.kind);
  TIR_USER_CHECK(api != nullptr) << "no device API for " << dev << " in this build";
  return *api;
}

bool has_view(Device dev, const void *data, size_t offset) {
  if (dev.is_cpu()) return true;
  const DeviceAPI *api = find_device_api(dev.kind);
  return api && api->has_view(dev, data, offset);
}

void copy_between_devices(const void *src, Device src_dev, void *dst, Device dst_dev,
                          size_t nbytes) {
  if (src_dev.is_cpu()) {
    device_api(dst_dev).copy(src, src_dev, dst, dst_dev, nbytes);
  } else if (dst_dev.is_cpu() || dst_dev.is(src_dev.kind)) {
    device_api(src_dev).copy(src, src_dev, dst, dst_dev, nbytes);
  } else {
    std::vector<unsigned char> host(nbytes);
    Device cpu = Device::cpu();
    device_api(src_dev).copy(src, src_dev, host.data(), cpu, nbytes);
    device_api(dst_dev).copy(host.data(), cpu, dst, dst_dev, nbytes);
  }
}

}  // namespace tensorir
