// The process-wide GL context: headless through EGL without a window system (Mesa's
// surfaceless platform, else an EGL device), or in a GLFW window (gl_window.cpp) when
// asked for; desktop GL 4.5 core, one mutex around every use.
#include <glad/egl.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "backends/opengl/gl_api.h"
#include "backends/opengl/gl_runtime.h"
#include "backends/opengl/gl_window.h"
#include "tensorir/error.h"
#include "tensorir/runtime/opengl.h"

namespace tensorir::opengl {

namespace {

std::recursive_mutex &gl_mutex() {
  static std::recursive_mutex *m = new std::recursive_mutex;  // never destroyed: used at exit
  return *m;
}

std::atomic<bool> g_alive{false};
thread_local int t_scope_depth = 0;

// The kind of context to make, from set_opengl_context() or else the environment. Guarded
// by gl_mutex().
struct ContextChoice {
  bool chosen = false;  // by set_opengl_context(); otherwise TENSORIR_GL_CONTEXT decides
  GLContextKind kind = GLContextKind::Headless;
  int width = 640, height = 480;
  std::string title = "tensorir";
};
ContextChoice &context_choice() {
  static ContextChoice *c = new ContextChoice;  // never destroyed, like the context
  return *c;
}

GLContextKind kind_from_environment() {
  const char *env = std::getenv("TENSORIR_GL_CONTEXT");
  std::string v = env ? env : "";
  if (v.empty() || v == "egl") return GLContextKind::Headless;
  if (v == "glfw") return GLContextKind::Window;
  TIR_THROW() << "TENSORIR_GL_CONTEXT='" << v
              << "' is not a known OpenGL context kind: use egl (headless, the default) or glfw (a window)";
}

std::string egl_error_name(EGLint e) {
  switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    default: {
      std::ostringstream os;
      os << "EGL error 0x" << std::hex << e;
      return os.str();
    }
  }
}

bool has_word(const char *list, const std::string &word) {
  if (!list) return false;
  std::istringstream in(list);
  std::string w;
  while (in >> w)
    if (w == word) return true;
  return false;
}

}  // namespace

struct GLContext::Impl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  void *window = nullptr;  // the GLFW window, when the context is a window's
  std::string renderer, version, platform;
  int max_texture = 0, max_invocations = 0, max_shared = 0, max_ssbos = 0;
  int group_size[3] = {0, 0, 0}, group_count[3] = {0, 0, 0};
  std::set<std::string> extensions;
};

namespace {

// Leaves the calling thread without a current context, so that another thread can take it.
void release_context(void *window, EGLDisplay display) {
  if (window) {
    window::release_current();
  } else if (display != EGL_NO_DISPLAY) {
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }
}

// Tries one EGL display; on failure appends the reason to `why` and returns false.
bool initialize_display(EGLDisplay dpy, const std::string &label, std::string &why) {
  if (dpy == EGL_NO_DISPLAY) {
    why += "  " + label + ": no display (" + egl_error_name(eglGetError()) + ")\n";
    return false;
  }
  EGLint major = 0, minor = 0;
  if (!eglInitialize(dpy, &major, &minor)) {
    why += "  " + label + ": eglInitialize failed (" + egl_error_name(eglGetError()) + ")\n";
    return false;
  }
  return true;
}

// Mesa's surfaceless platform first (no X, no /dev/dri needed), then each EGL device.
EGLDisplay open_display(std::string &platform, std::string &why) {
  const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!has_word(client, "EGL_EXT_platform_base") || !eglGetPlatformDisplayEXT) {
    why += "  libEGL lacks EGL_EXT_platform_base (client extensions: " +
           std::string(client ? client : "none") + ")\n";
    return EGL_NO_DISPLAY;
  }
  // TENSORIR_EGL_PLATFORM=device skips the surfaceless platform (to test the fallback).
  const char *force = std::getenv("TENSORIR_EGL_PLATFORM");
  bool device_only = force && std::string(force) == "device";
  if (device_only) {
    why += "  surfaceless platform skipped (TENSORIR_EGL_PLATFORM=device)\n";
  } else if (has_word(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (initialize_display(dpy, "surfaceless platform", why)) {
      platform = "EGL surfaceless";
      return dpy;
    }
  } else {
    why += "  no EGL_MESA_platform_surfaceless\n";
  }
  if (has_word(client, "EGL_EXT_platform_device") && eglQueryDevicesEXT) {
    EGLDeviceEXT devices[16];
    EGLint n = 0;
    if (eglQueryDevicesEXT(16, devices, &n) && n > 0) {
      for (EGLint i = 0; i < n; ++i) {
        EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        if (initialize_display(dpy, "EGL device " + std::to_string(i), why)) {
          platform = "EGL device " + std::to_string(i);
          return dpy;
        }
      }
    } else {
      why += "  EGL_EXT_platform_device lists no device\n";
    }
  } else {
    why += "  no EGL_EXT_platform_device\n";
  }
  return EGL_NO_DISPLAY;
}

// At exit: later frees must not touch GL (libraries may already be torn down).
void mark_exiting() {
  std::lock_guard<std::recursive_mutex> lock(gl_mutex());
  g_alive = false;
}

[[noreturn]] void fail_headless(const std::string &msg) {
  TIR_THROW() << "cannot create an OpenGL context: " << msg
              << "\n(the opengl target needs libEGL and Mesa: Debian packages libegl1 libegl-mesa0 "
                 "libgl1-mesa-dri; see scripts/install-deps.sh)";
}

// The headless context, made current on the calling thread with the GL entry points loaded.
// Returns glad's GL version.
int create_headless(EGLDisplay &display, EGLContext &context, std::string &platform) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) fail_headless("libEGL.so.1 could not be loaded");
  std::string why;
  display = open_display(platform, why);
  if (display == EGL_NO_DISPLAY) fail_headless("no EGL display could be opened:\n" + why);
  if (!gladLoaderLoadEGL(display)) fail_headless("the EGL display's entry points could not be loaded");
  if (!eglBindAPI(EGL_OPENGL_API))
    fail_headless("eglBindAPI(EGL_OPENGL_API) failed: " + egl_error_name(eglGetError()));

  // A config is only needed by drivers without configless contexts.
  EGLConfig config = nullptr;
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                   EGL_NONE};
  EGLint n_configs = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &n_configs) || n_configs < 1) config = nullptr;
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_NONE};
  context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT)
    fail_headless("eglCreateContext for OpenGL 4.5 core failed (" + egl_error_name(eglGetError()) + ") on " +
                  platform);
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
    fail_headless("eglMakeCurrent without a surface failed (" + egl_error_name(eglGetError()) + ")");
  int gl_version = gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
  if (gl_version == 0) fail_headless("the OpenGL entry points could not be loaded");
  return gl_version;
}

}  // namespace

GLContext::GLContext() : impl_(nullptr) {
  auto owned = std::make_unique<Impl>();
  Impl &s = *owned;
  const ContextChoice &choice = context_choice();
  GLContextKind kind = choice.chosen ? choice.kind : kind_from_environment();
  int gl_version = 0;
  if (kind == GLContextKind::Window) {
    s.window = window::create(choice.width, choice.height, choice.title, s.platform);
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    gl_version = GLAD_MAKE_VERSION(major, minor);
  } else {
    gl_version = create_headless(s.display, s.context, s.platform);
  }
  if (GLAD_VERSION_MAJOR(gl_version) * 10 + GLAD_VERSION_MINOR(gl_version) < 43) {
    release_context(s.window, s.display);
    TIR_THROW() << "cannot create an OpenGL context: OpenGL 4.3 or later is needed for compute shaders, got "
                << GLAD_VERSION_MAJOR(gl_version) << "." << GLAD_VERSION_MINOR(gl_version) << " on " << s.platform;
  }

  auto str = [](GLenum e) {
    const GLubyte *p = glGetString(e);
    return std::string(p ? reinterpret_cast<const char *>(p) : "?");
  };
  s.renderer = str(GL_RENDERER);
  s.version = str(GL_VERSION);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &s.max_texture);
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &s.max_invocations);
  glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &s.max_shared);
  glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &s.max_ssbos);
  for (GLuint a = 0; a < 3; ++a) {
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, a, &s.group_size[a]);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, a, &s.group_count[a]);
  }
  GLint n_ext = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n_ext);
  for (GLint i = 0; i < n_ext; ++i)
    if (const GLubyte *e = glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)))
      s.extensions.insert(reinterpret_cast<const char *>(e));
  while (glGetError() != GL_NO_ERROR) {
  }
  release_context(s.window, s.display);
  impl_ = owned.release();
  g_alive = true;
  std::atexit(mark_exiting);
}

namespace {
// Guarded by gl_mutex(). The context is never destroyed: buffers may be freed during exit.
GLContext *g_context = nullptr;
// A failure is remembered so every later use reports the same reason quickly, until
// set_opengl_context() chooses again.
std::string *g_failure = nullptr;
}  // namespace

GLContext &GLContext::get() {
  std::lock_guard<std::recursive_mutex> lock(gl_mutex());
  if (g_context) return *g_context;
  if (g_failure) TIR_THROW() << *g_failure;
  try {
    g_context = new GLContext();
  } catch (const Error &e) {
    g_failure = new std::string(e.what());
    throw;
  }
  return *g_context;
}

bool GLContext::alive() { return g_alive; }

void GLContext::make_current() {
  TIR_USER_CHECK(g_alive) << "the OpenGL context is no longer available (the process is exiting)";
  if (impl_->window) {
    if (!window::is_current(impl_->window)) window::make_current(impl_->window);
    return;
  }
  if (eglGetCurrentContext() == impl_->context) return;
  TIR_USER_CHECK(eglMakeCurrent(impl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, impl_->context))
      << "cannot make the OpenGL context current on this thread: " << egl_error_name(eglGetError());
}

int GLContext::max_texture_size() const { return impl_->max_texture; }
int GLContext::max_work_group_invocations() const { return impl_->max_invocations; }
int GLContext::max_shared_memory_bytes() const { return impl_->max_shared; }
int GLContext::max_compute_storage_buffers() const { return impl_->max_ssbos; }
std::string GLContext::renderer() const { return impl_->renderer; }
std::string GLContext::version() const { return impl_->version; }
std::string GLContext::platform() const { return impl_->platform; }
bool GLContext::is_window() const { return impl_->window != nullptr; }
int GLContext::max_work_group_size(int axis) const { return impl_->group_size[axis < 0 || axis > 2 ? 0 : axis]; }
int GLContext::max_work_group_count(int axis) const { return impl_->group_count[axis < 0 || axis > 2 ? 0 : axis]; }
bool GLContext::has_extension(const std::string &name) const { return impl_->extensions.count(name) != 0; }

// The context is current only while a scope is open, so that another thread can take it
// next (EGL allows a context to be current on one thread at a time).
GLScope::GLScope() {
  GLContext &ctx = GLContext::get();  // outside the lock's scope guard below: may throw
  gl_mutex().lock();
  if (t_scope_depth++ == 0) {
    try {
      ctx.make_current();
    } catch (...) {
      --t_scope_depth;
      gl_mutex().unlock();
      throw;
    }
  }
}

GLScope::~GLScope() {
  if (--t_scope_depth == 0 && g_alive && g_context) g_context->release_current();
  gl_mutex().unlock();
}

void GLContext::release_current() noexcept { release_context(impl_->window, impl_->display); }

void check_gl_error(const std::string &what) {
  GLenum e = glGetError();
  if (e == GL_NO_ERROR) return;
  std::string name;
  switch (e) {
    case GL_INVALID_ENUM: name = "GL_INVALID_ENUM"; break;
    case GL_INVALID_VALUE: name = "GL_INVALID_VALUE"; break;
    case GL_INVALID_OPERATION: name = "GL_INVALID_OPERATION"; break;
    case GL_OUT_OF_MEMORY: name = "GL_OUT_OF_MEMORY"; break;
    case GL_INVALID_FRAMEBUFFER_OPERATION: name = "GL_INVALID_FRAMEBUFFER_OPERATION"; break;
    default: name = "GL error " + std::to_string(e); break;
  }
  while (glGetError() != GL_NO_ERROR) {
  }
  TIR_THROW() << "OpenGL reported " << name << " " << what;
}

}  // namespace tensorir::opengl

namespace tensorir {

void set_opengl_context(GLContextKind kind, int width, int height, const std::string &title) {
  using opengl::g_context;
  using opengl::g_failure;
  TIR_USER_CHECK(kind == GLContextKind::Headless || kind == GLContextKind::Window)
      << "set_opengl_context: unknown GLContextKind " << static_cast<int>(kind);
  TIR_USER_CHECK(width > 0 && height > 0)
      << "set_opengl_context: the window size must be positive, got " << width << "x" << height;
  TIR_USER_CHECK(kind != GLContextKind::Window || opengl::window::available())
      << "set_opengl_context(GLContextKind::Window): tensorir was built without GLFW (libglfw3-dev was not "
         "found when it was configured; see scripts/install-deps.sh), so only the headless context "
         "(GLContextKind::Headless) is available";
  std::lock_guard<std::recursive_mutex> lock(opengl::gl_mutex());
  TIR_USER_CHECK(!g_context) << "set_opengl_context: the OpenGL context already exists ("
                             << g_context->platform() << ", " << g_context->renderer()
                             << "); choose the context kind before the first OpenGL use";
  opengl::ContextChoice &c = opengl::context_choice();
  c.chosen = true;
  c.kind = kind;
  c.width = width;
  c.height = height;
  c.title = title;
  delete g_failure;  // the next use tries again with this choice
  g_failure = nullptr;
}

std::string opengl_renderer() { return opengl::GLContext::get().renderer(); }

}  // namespace tensorir
