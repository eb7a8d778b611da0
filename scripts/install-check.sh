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
echo "install-check: passed"
