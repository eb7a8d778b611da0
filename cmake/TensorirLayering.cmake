# The layers of libtensorir may only include downwards: nothing under lib/ (the core and
# the graph layer) includes a backend's file. Backends plug in through registries
# (tensorir/build.h, tensorir/target_kind.h, tensorir/graph/artifact.h) instead.
#
# Included from the top-level CMakeLists.txt, tensorir_check_layering(<root>) checks the
# sources when the build is configured; run as a script (cmake -DROOT=<root> -DSTAMP=<file>
# -P TensorirLayering.cmake) it checks them again at build time, whenever one changes.

function(tensorir_check_layering root)
  file(GLOB_RECURSE files "${root}/lib/*.cpp" "${root}/lib/*.h")
  set(bad "")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(line IN LISTS lines)
      if(line MATCHES "include[ \t]*[\"<]((\\.\\./)*backends/|llvm/|glsl/|opengl/|llvm-c/|glad/|GL/|EGL/)")
        file(RELATIVE_PATH rel "${root}" "${f}")
        string(STRIP "${line}" line)
        string(APPEND bad "\n  ${rel}: ${line}")
      endif()
    endforeach()
  endforeach()
  if(bad)
    message(FATAL_ERROR
      "tensorir: files under lib/ include backend (or LLVM/OpenGL) headers:${bad}\n"
      "lib/ is the core and the graph layer; backends plug into it through the registries of "
      "tensorir/build.h, tensorir/target_kind.h and tensorir/graph/artifact.h. Move the code "
      "that needs the backend into backends/<name>/ and register it there.")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND ROOT)
  tensorir_check_layering("${ROOT}")
  if(STAMP)
    file(WRITE "${STAMP}" "lib/ includes no backend\n")
  endif()
endif()
