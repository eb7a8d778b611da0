#!/usr/bin/env bash
# Installs the Debian packages the build needs; does nothing when all are present.
set -euo pipefail

packages=(build-essential cmake ninja-build ccache lld llvm-19-dev libeigen3-dev catch2
          libfmt-dev libopenblas-dev pkg-config
          # oneDNN (a benchmark peer): its CMake config requires OpenCL headers and the ICD loader
          libdnnl-dev ocl-icd-opencl-dev opencl-c-headers
          # the "opencl" target: the ICD loader and headers above, PoCL (OpenCL on the CPU) for
          # the tests, clinfo to list the devices, CLBlast (the OpenCL GEMM peer)
          pocl-opencl-icd clinfo libclblast-dev
          # wasm-ld-19 links the "wasm" target's modules (LLVM 19 objects)
          lld-19
          # OpenGL: the glad loader generator, headless EGL and Mesa's software driver
          python3-glad libegl-dev libgles-dev libegl1 libegl-mesa0 libgl1-mesa-dri libglfw3-dev
          # the OpenGL window tests run under a virtual X display (xvfb-run needs xauth)
          xvfb xauth
          # the web package tests: headless Chromium driven from Node.js (playwright-core)
          chromium
          # the fuzz targets (fuzz/, make fuzz): clang 19 with libFuzzer
          clang-19 libclang-rt-19-dev
          # the ONNX importer (frontend/onnx): ONNX's protobuf classes, and its backend test cases
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
          # the command line (tools/tensorir): CLI11, header-only
          libcli11-dev
          # RPC (lib/rpc): WebSocket and HTTP through Boost.Beast, JSON headers; both header-only
          libboost-dev nlohmann-json3-dev
          # the tuner's cost model (lib/autotune): XGBoost's C API, linked privately
          libxgboost-dev)
# Debian's npm only where no npm is present: a nodejs from elsewhere (e.g. NodeSource)
# bundles its own npm, which the Debian package conflicts with.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The browser tests' npm packages (playwright-core, pinned in package-lock.json), installed
# into the repository's node_modules when missing or when the lock file changed.
# playwright-core stays at 1.61.x: later releases refuse Debian 12's Node.js 18.
install_npm_deps() {
  local lock="$repo/package-lock.json" stamp="$repo/node_modules/.tensorir-lock.sha256"
  [[ -f "$lock" ]] || return 0
  local want
  want=$(sha256sum "$lock" | cut -d' ' -f1)
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "install-deps: npm packages up to date"
    return 0
  fi
  echo "install-deps: npm ci (web test dependencies)"
  (cd "$repo" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$want" >"$stamp"
}

# One dpkg-query for all of them: this runs before every build.
declare -A installed=()
while read -r name state; do
  [[ "$state" == "install ok installed" ]] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
  [[ -n "${installed[$p]:-}" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_npm_deps
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_npm_deps
echo "install-deps: done"
