#!/usr/bin/env bash
# Installs tensorir from a build tree into a temporary prefix, then builds and
# runs test/install (an outside project using find_package(tensorir)).
# Usage: scripts/install-check.sh [build-dir]   (default build/release)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
work=$(mktemp -d "${TMPDIR:-/tmp}/tensorir-install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
if find "$work/prefix/include" -path '*llvm*' | grep -q .; then
  echo "install-check: LLVM headers leaked into the installed include tree" >&2
  exit 1
fi
if grep -rlE '#include <(google/protobuf|onnx)/' "$work/prefix/include" | grep -q .; then
  echo "install-check: an installed header includes a protobuf or ONNX header" >&2
  exit 1
fi

# No compiler launcher here, so the compile time printed below is a real one.
cmake -S "$root/test/install" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$work/configure.log" ||
  { cat "$work/configure.log" >&2; exit 1; }

start=$(date +%s.%N)
cmake --build "$work/build" --target CMakeFiles/consumer.dir/main.cpp.o >/dev/null
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" \
  'BEGIN { printf "install-check: compiling main.cpp (includes tensorir.h) took %.2f s\n", b - a }'
cmake --build "$work/build" >/dev/null

if readelf -d "$work/build/consumer" | grep -q 'libLLVM'; then
  echo "install-check: the consumer links libLLVM directly; it should come only through libtensorir" >&2
  exit 1
fi

"$work/build/consumer" >"$work/run.log" || { cat "$work/run.log" >&2; echo "install-check: FAILED" >&2; exit 1; }
tail -n 1 "$work/run.log"

# The runtime library alone (tensorir::runtime): no LLVM, and a consumer that links
# only it builds and runs without libtensorir.
runtime_lib=$(find "$work/prefix" -name 'libtensorir_runtime.so' | head -n 1)
[ -n "$runtime_lib" ] || { echo "install-check: libtensorir_runtime.so was not installed" >&2; exit 1; }
if readelf -d "$runtime_lib" | grep -q 'libLLVM'; then
  echo "install-check: libtensorir_runtime links libLLVM" >&2
  exit 1
fi
mkdir -p "$work/runtime-consumer"
cat >"$work/runtime-consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(tensorir_runtime_consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(tensorir CONFIG REQUIRED)
add_executable(runtime_consumer main.cpp)
target_link_libraries(runtime_consumer PRIVATE tensorir::runtime)
CMAKE
cat >"$work/runtime-consumer/main.cpp" <<'CPP'
#include <tensorir/runtime/model_loader.h>
#include <cstdio>
int main() {
  tensorir::NDArray a = tensorir::NDArray::from_vector<float>({1, 2, 3}, {3});
  try {
    tensorir::runtime::load_model("/nonexistent/model");
  } catch (const tensorir::Error &e) {
    std::printf("runtime-only consumer: %g, load_model: %s\n", a.to_vector<float>()[2], e.what());
    return 0;
  }
  return 1;
}
CPP
cmake -S "$work/runtime-consumer" -B "$work/runtime-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$work/configure-runtime.log" ||
  { cat "$work/configure-runtime.log" >&2; exit 1; }
cmake --build "$work/runtime-build" >/dev/null
if readelf -d "$work/runtime-build/runtime_consumer" | grep -Eq 'libLLVM|libtensorir\.so'; then
  echo "install-check: the runtime-only consumer links libtensorir or LLVM" >&2
  exit 1
fi
"$work/runtime-build/runtime_consumer" || { echo "install-check: runtime-only consumer FAILED" >&2; exit 1; }
# The ONNX importer (tensorir::onnx): its public header needs neither protobuf nor ONNX
# headers, and a consumer links it without naming protobuf.
mkdir -p "$work/onnx-consumer"
cat >"$work/onnx-consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(tensorir_onnx_consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(tensorir CONFIG REQUIRED)
add_executable(onnx_consumer main.cpp)
target_link_libraries(onnx_consumer PRIVATE tensorir::onnx)
CMAKE
cat >"$work/onnx-consumer/main.cpp" <<'CPP'
#include <tensorir/frontend/onnx.h>
#include <cstdio>
int main() {
  try {
    tensorir::onnx::import_bytes("not a model");
  } catch (const tensorir::Error &e) {
    std::printf("onnx consumer: %s\n", e.what());
    return 0;
  }
  return 1;
}
CPP
cmake -S "$work/onnx-consumer" -B "$work/onnx-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$work/configure-onnx.log" ||
  { cat "$work/configure-onnx.log" >&2; exit 1; }
cmake --build "$work/onnx-build" >/dev/null
"$work/onnx-build/onnx_consumer" || { echo "install-check: ONNX consumer FAILED" >&2; exit 1; }
echo "install-check: passed"
