// NDArray storage on Device::opencl(i): one cl_mem per array, registered as the
// DeviceAPI of Device::OpenCL when the library loads. Copies go through the device's
// in-order queue and block, so a copy sees every kernel enqueued before it.
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/opencl/cl_runtime.h"
#include "runtime/device_api.h"
#include "tensorir/error.h"

namespace tensorir::opencl {

namespace {

class OpenCLDeviceAPI final : public DeviceAPI {
 public:
  bool shares_host_caches(Device dev) const override { return context(dev.id).info->cpu; }
  void *alloc(Device dev, size_t nbytes) override {
    const Context &c = context(dev.id);
    auto buf = std::make_unique<Buffer>();
    buf->bytes = nbytes;
    cl_int err = CL_SUCCESS;
    // A buffer of no bytes is invalid in OpenCL: keep one word.
    const size_t size = nbytes == 0 ? 4 : nbytes;
    buf->mem = clCreateBuffer(c.context, CL_MEM_READ_WRITE, size, nullptr, &err);
    TIR_USER_CHECK(err == CL_SUCCESS) << "out of memory: cannot allocate " << nbytes << " bytes on " << dev << " ("
                                      << c.info->name << "): " << error_name(err);
    const cl_uchar zero = 0;
    err = clEnqueueFillBuffer(c.queue, buf->mem, &zero, 1, 0, size, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) {
      clReleaseMemObject(buf->mem);
      check(err, "clearing " + std::to_string(nbytes) + " bytes on " + dev.str());
    }
    return buf.release();
  }

  void free(Device, void *data) noexcept override {
    auto *buf = static_cast<Buffer *>(data);
    if (!buf) return;
    if (buf->mem) clReleaseMemObject(buf->mem);
    delete buf;
  }

  // Sub-buffers may start only at the device's base address alignment; other offsets
  // have no view (the executor gives those results arrays of their own).
  bool has_view(Device dev, const void *data, size_t offset) const override {
    const auto *b = static_cast<const Buffer *>(data);
    const size_t align = std::max<size_t>(context(dev.id).info->base_addr_align_bits / 8, 1);
    return b && b->mem && (b->offset + offset) % align == 0;
  }

  void *view(Device dev, void *data, size_t offset, size_t nbytes) override {
    const auto *b = static_cast<const Buffer *>(data);
    if (!has_view(dev, data, offset)) return nullptr;
    if (nbytes == 0) return alloc(dev, 0);  // nothing to share; a sub-buffer cannot be empty
    auto view = std::make_unique<Buffer>();
    view->root = b->root ? b->root : b->mem;
    view->offset = b->offset + offset;
    view->bytes = nbytes;
    cl_buffer_region region{view->offset, nbytes};
    cl_int err = CL_SUCCESS;
    view->mem = clCreateSubBuffer(view->root, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    check(err, "clCreateSubBuffer of " + std::to_string(nbytes) + " bytes at offset " +
                   std::to_string(view->offset) + " on " + dev.str());
    return view.release();
  }

  void free_view(Device dev, void *view) noexcept override { free(dev, view); }

  // Sub-buffers of one buffer overlap where their byte ranges do.
  bool overlap(Device, const void *a, size_t an, const void *b, size_t bn) const override {
    const auto *x = static_cast<const Buffer *>(a), *y = static_cast<const Buffer *>(b);
    if (!x->mem || !y->mem) return false;  // empty arrays
    if ((x->root ? x->root : x->mem) != (y->root ? y->root : y->mem)) return false;
    return x->offset < y->offset + bn && y->offset < x->offset + an;
  }

  void copy(const void *src, Device src_dev, void *dst, Device dst_dev, size_t nbytes) override {
    if (nbytes == 0) return;
    const bool from_cl = src_dev.kind == Device::OpenCL, to_cl = dst_dev.kind == Device::OpenCL;
    TIR_ASSERT(from_cl || to_cl) << "OpenCL copy between " << src_dev << " and " << dst_dev;
    if (from_cl && to_cl && src_dev.id != dst_dev.id) {  // two contexts: through the host
      std::vector<char> host(nbytes);
      copy(src, src_dev, host.data(), Device::cpu(), nbytes);
      copy(host.data(), Device::cpu(), dst, dst_dev, nbytes);
      return;
    }
    const Context &c = context(from_cl ? src_dev.id : dst_dev.id);
    const std::string what = "copying " + std::to_string(nbytes) + " bytes from " + src_dev.str() + " to " +
                             dst_dev.str();
    if (from_cl && to_cl) {
      const Buffer &s = sized(src, nbytes, "source"), &d = sized(dst, nbytes, "destination");
      check(clEnqueueCopyBuffer(c.queue, s.mem, d.mem, 0, 0, nbytes, 0, nullptr, nullptr), what);
      check(clFinish(c.queue), what);
    } else if (to_cl) {
      check(clEnqueueWriteBuffer(c.queue, sized(dst, nbytes, "destination").mem, CL_TRUE, 0, nbytes, src, 0,
                                 nullptr, nullptr),
            what);
    } else {
      check(clEnqueueReadBuffer(c.queue, sized(src, nbytes, "source").mem, CL_TRUE, 0, nbytes, dst, 0, nullptr,
                                nullptr),
            what);
    }
  }

 private:
  static const Buffer &sized(const void *data, size_t nbytes, const char *side) {
    const auto *b = static_cast<const Buffer *>(data);
    TIR_ASSERT(b && b->mem && nbytes <= b->bytes)
        << "OpenCL copy of " << nbytes << " bytes with a " << side << " buffer of " << (b ? b->bytes : 0) << " bytes";
    return *b;
  }
};

const bool registered = [] {
  // Never destroyed: arrays held in static storage are freed after static destructors run.
  register_device_api(Device::OpenCL, new OpenCLDeviceAPI);
  return true;
}();

}  // namespace

const Buffer &buffer(const NDArray &a, int device, const std::string &what) {
  TIR_USER_CHECK(a.defined()) << what << " is an undefined NDArray";
  const Device want = Device::opencl(device);
  TIR_USER_CHECK(a.device() == want) << what << " is on " << a.device() << ", not on " << want
                                     << ": copy it there with .to(Device::opencl(" << device << "))";
  const auto *buf = static_cast<const Buffer *>(a.data());
  TIR_ASSERT(buf != nullptr && buf->mem != nullptr) << what << " has no OpenCL buffer";
  return *buf;
}

}  // namespace tensorir::opencl
