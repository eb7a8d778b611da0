// NDArray storage on Device::opengl(): one GL buffer object per array, registered as the
// DeviceAPI of Device::OpenGL when the library loads.
#include <cstdint>

#include "backends/opengl/gl_api.h"
#include "backends/opengl/gl_runtime.h"
#include "runtime/device_api.h"
#include "tensorir/error.h"

namespace tensorir::opengl {

namespace {

// Buffer objects hold whole 4-byte words: shaders address them as uint/float arrays.
size_t word_bytes(size_t nbytes) { return nbytes == 0 ? 4 : (nbytes + 3) / 4 * 4; }

class OpenGLDeviceAPI final : public DeviceAPI {
 public:
  void *alloc(Device dev, size_t nbytes) override {
    check_device(dev);
    size_t size = word_bytes(nbytes);
    TIR_USER_CHECK(size >= nbytes && size <= static_cast<size_t>(PTRDIFF_MAX))
        << "cannot allocate " << nbytes << " bytes on " << dev;
    GLScope scope;
    while (glGetError() != GL_NO_ERROR) {
    }
    auto *buf = new GLBuffer;
    buf->bytes = nbytes;
    glCreateBuffers(1, &buf->id);
    glNamedBufferData(buf->id, static_cast<GLsizeiptr>(size), nullptr, GL_DYNAMIC_COPY);
    GLenum err = glGetError();
    if (err == GL_NO_ERROR) {
      GLuint zero = 0;
      glClearNamedBufferData(buf->id, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
      err = glGetError();
    }
    if (err != GL_NO_ERROR) {
      glDeleteBuffers(1, &buf->id);
      delete buf;
      TIR_THROW() << "out of memory: cannot allocate " << nbytes << " bytes on " << dev << " (OpenGL error 0x"
                  << std::hex << err << ")";
    }
    return buf;
  }

  void free(Device, void *data) noexcept override {
    auto *buf = static_cast<GLBuffer *>(data);
    if (!buf) return;
    // During exit the context may be gone: the OS reclaims the buffer.
    if (buf->id != 0 && GLContext::alive()) {
      try {
        GLScope scope;
        glDeleteBuffers(1, &buf->id);
      } catch (...) {
      }
    }
    delete buf;
  }

  void copy(const void *src, Device src_dev, void *dst, Device dst_dev, size_t nbytes) override {
    if (nbytes == 0) return;
    bool from_gl = src_dev.kind == Device::OpenGL, to_gl = dst_dev.kind == Device::OpenGL;
    TIR_ASSERT(from_gl || to_gl) << "OpenGL copy between " << src_dev << " and " << dst_dev;
    GLScope scope;
    if (from_gl && to_gl) {
      const auto *s = static_cast<const GLBuffer *>(src);
      auto *d = static_cast<GLBuffer *>(dst);
      check_size(*s, nbytes, "source");
      check_size(*d, nbytes, "destination");
      glCopyNamedBufferSubData(s->id, d->id, 0, 0, static_cast<GLsizeiptr>(nbytes));
      check_gl_error("copying " + std::to_string(nbytes) + " bytes between OpenGL buffers");
    } else if (to_gl) {
      auto *d = static_cast<GLBuffer *>(dst);
      check_size(*d, nbytes, "destination");
      glNamedBufferSubData(d->id, 0, static_cast<GLsizeiptr>(nbytes), src);
      check_gl_error("uploading " + std::to_string(nbytes) + " bytes to an OpenGL buffer");
    } else {
      const auto *s = static_cast<const GLBuffer *>(src);
      check_size(*s, nbytes, "source");
      // Shader writes become visible to buffer reads only after this barrier.
      glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
      glGetNamedBufferSubData(s->id, 0, static_cast<GLsizeiptr>(nbytes), dst);
      check_gl_error("downloading " + std::to_string(nbytes) + " bytes from an OpenGL buffer");
    }
  }

  // A view at offset 0 is the same buffer object read as another shape and dtype (the RPC
  // server keeps arrays as bytes and calls modules on typed views); GL has no sub-buffers.
  bool has_view(Device, const void *, size_t offset) const override { return offset == 0; }
  void *view(Device, void *data, size_t offset, size_t nbytes) override {
    if (offset != 0) return nullptr;
    return new GLBuffer{static_cast<GLBuffer *>(data)->id, nbytes};
  }
  void free_view(Device, void *view) noexcept override { delete static_cast<GLBuffer *>(view); }
  bool overlap(Device, const void *a, size_t, const void *b, size_t) const override {
    return static_cast<const GLBuffer *>(a)->id == static_cast<const GLBuffer *>(b)->id;
  }

 private:
  static void check_device(Device dev) {
    TIR_USER_CHECK(dev.kind == Device::OpenGL && dev.id == 0)
        << "there is one OpenGL device, opengl(0); " << dev << " does not exist";
  }
  static void check_size(const GLBuffer &b, size_t nbytes, const char *side) {
    TIR_ASSERT(b.id != 0 && nbytes <= b.bytes)
        << "OpenGL copy of " << nbytes << " bytes with a " << side << " buffer of " << b.bytes << " bytes";
  }
};

const bool registered = [] {
  // Never destroyed: arrays held in static storage are freed after static destructors run.
  register_device_api(Device::OpenGL, new OpenGLDeviceAPI);
  return true;
}();

}  // namespace

GLBuffer &gl_buffer(const NDArray &a, const std::string &what) {
  TIR_USER_CHECK(a.defined()) << what << " is an undefined NDArray";
  TIR_USER_CHECK(a.device().kind == Device::OpenGL)
      << what << " is on " << a.device() << ", not on opengl(0): copy it there with .to(Device::opengl())";
  auto *buf = static_cast<GLBuffer *>(a.data());
  TIR_ASSERT(buf != nullptr) << what << " has no OpenGL buffer";
  return *buf;
}

}  // namespace tensorir::opengl
