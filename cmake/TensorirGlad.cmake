# Generates the OpenGL and EGL loaders with glad 2 (Debian python3-glad) at build time,
# into the build tree, and defines tensorir_add_glad(<target>) which compiles them into
# <target> with the generated headers on its private include path.
#
# The loaders dlopen libEGL/libGL at run time, so nothing links against GL here.

find_program(TENSORIR_GLAD_EXECUTABLE glad)
if(NOT TENSORIR_GLAD_EXECUTABLE)
  message(FATAL_ERROR
    "tensorir: TENSORIR_WITH_OPENGL is ON but the 'glad' loader generator was not found.\n"
    "Install it with scripts/install-deps.sh (Debian package python3-glad), "
    "or configure with -DTENSORIR_WITH_OPENGL=OFF to build without the OpenGL backends.")
endif()

set(TENSORIR_GLAD_DIR "${CMAKE_BINARY_DIR}/glad")
# Only what the runtime calls beyond core GL 4.5 / GLES 3.2 and EGL 1.5: a short list keeps
# gl.c small (it compiles in well under a second).
set(TENSORIR_GL_EXTENSIONS
  GL_ARB_gpu_shader_int64 GL_ARB_gpu_shader_fp64 GL_EXT_color_buffer_float GL_KHR_debug)
set(TENSORIR_EGL_EXTENSIONS
  EGL_EXT_platform_base EGL_EXT_platform_device EGL_EXT_device_base EGL_EXT_device_enumeration
  EGL_EXT_device_query EGL_MESA_platform_surfaceless EGL_KHR_surfaceless_context
  EGL_KHR_create_context EGL_KHR_no_config_context)
list(JOIN TENSORIR_GL_EXTENSIONS "," _tensorir_gl_ext)
list(JOIN TENSORIR_EGL_EXTENSIONS "," _tensorir_egl_ext)

set(TENSORIR_GLAD_SOURCES
  "${TENSORIR_GLAD_DIR}/src/gl.c"
  "${TENSORIR_GLAD_DIR}/src/egl.c")
set(TENSORIR_GLAD_HEADERS
  "${TENSORIR_GLAD_DIR}/include/glad/gl.h"
  "${TENSORIR_GLAD_DIR}/include/glad/egl.h")

# Both runs write include/KHR/khrplatform.h, so they are one command. --reproducible uses
# the Khronos XML shipped with glad: no network.
add_custom_command(
  OUTPUT ${TENSORIR_GLAD_SOURCES} ${TENSORIR_GLAD_HEADERS}
  COMMAND "${TENSORIR_GLAD_EXECUTABLE}" --quiet --reproducible --api gl:core=4.5,gles2=3.2 --merge
          --extensions "${_tensorir_gl_ext}" --out-path "${TENSORIR_GLAD_DIR}" c --loader
  COMMAND "${TENSORIR_GLAD_EXECUTABLE}" --quiet --reproducible --api egl=1.5
          --extensions "${_tensorir_egl_ext}" --out-path "${TENSORIR_GLAD_DIR}" c --loader
  DEPENDS "${CMAKE_CURRENT_LIST_FILE}"
  COMMENT "Generating the OpenGL and EGL loaders with glad"
  VERBATIM)

# Generated code: compiled quietly, whatever warnings the project enables.
set_source_files_properties(${TENSORIR_GLAD_SOURCES} PROPERTIES
  GENERATED TRUE
  COMPILE_OPTIONS "-w")

function(tensorir_add_glad target)
  target_sources(${target} PRIVATE ${TENSORIR_GLAD_SOURCES} ${TENSORIR_GLAD_HEADERS})
  target_include_directories(${target} SYSTEM PRIVATE "${TENSORIR_GLAD_DIR}/include")
endfunction()
