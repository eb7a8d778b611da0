# Compiler launcher, linker and warning flags, chosen once for the whole tree.
include(CheckCXXCompilerFlag)
include(CheckLinkerFlag)

# ccache makes rebuilds of the LLVM-heavy translation units cheap.
find_program(TENSORIR_CCACHE ccache)
if(TENSORIR_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER "${TENSORIR_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${TENSORIR_CCACHE}")
endif()

# lld links an order of magnitude faster than GNU ld.
option(TENSORIR_USE_LLD "Link with lld when the compiler accepts it" ON)
if(TENSORIR_USE_LLD)
  check_linker_flag(CXX "-fuse-ld=lld" TENSORIR_HAVE_LLD)
  if(TENSORIR_HAVE_LLD)
    add_link_options("-fuse-ld=lld")
  endif()
endif()

# Warnings for the project's own code (not applied to third-party headers).
set(TENSORIR_WARNINGS -Wall -Wextra -Wno-unused-parameter)

# Flags for examples and benchmarks: full optimisation for this machine.
set(TENSORIR_FAST_FLAGS -O3)
check_cxx_compiler_flag("-march=native" TENSORIR_HAVE_MARCH_NATIVE)
if(TENSORIR_HAVE_MARCH_NATIVE)
  list(APPEND TENSORIR_FAST_FLAGS -march=native)
endif()
