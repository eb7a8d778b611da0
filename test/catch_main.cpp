// The single Catch2 entry point shared by all test executables.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

// Sanitizer builds: defaults built into the test executables, so test discovery
// at build time and ctest runs behave the same without environment variables
// (ASAN_OPTIONS / UBSAN_OPTIONS still override them). Leak detection stays on:
// LLVM's ORC JIT releases what it allocates.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "detect_leaks=1:halt_on_error=1"; }
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }
#endif
