#!/usr/bin/env bash
# Installs the peers bench_resnet18 compares with, when they are missing:
#   PyTorch and torchvision (Debian python3-torch, python3-torchvision, python3-onnx for the
#   export), and ONNX Runtime for Node.js (npm onnxruntime-node, from bench/peers/package-lock.json
#   into bench/peers/node_modules; it ships its own native library).
# Prints one line per peer and exits non-zero when a peer could not be installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
status=0

python_ok() { /usr/bin/python3 -c 'import torch, torchvision, onnx' >/dev/null 2>&1; }
if ! python_ok; then
  pkgs=(python3-torch python3-torchvision python3-onnx)
  if [[ $(id -u) -eq 0 ]]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo -n); else sudo=(false); fi
  echo "install-peers: installing ${pkgs[*]} (apt)"
  { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" ||
    { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}"; }
  } >/dev/null 2>&1
fi
if python_ok; then
  echo "install-peers: pytorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
else
  echo "install-peers: PyTorch is missing and could not be installed (apt-get install python3-torch python3-torchvision python3-onnx as root)" >&2
  status=1
fi

ort_ok() { NODE_PATH="$here/peers/node_modules" node -e "require('onnxruntime-node')" >/dev/null 2>&1; }
if ! command -v node >/dev/null 2>&1; then
  echo "install-peers: node is missing (apt-get install nodejs npm)" >&2
  exit 1
fi
if ! ort_ok || [[ "$here/peers/package-lock.json" -nt "$here/peers/node_modules/.package-lock.json" ]]; then
  echo "install-peers: installing onnxruntime-node (npm ci in bench/peers)"
  # The package's install script only fetches GPU providers; the CPU library is in the package.
  (cd "$here/peers" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
fi
if ort_ok; then
  echo "install-peers: onnxruntime-node $(NODE_PATH="$here/peers/node_modules" node -p "require('onnxruntime-node/package.json').version")"
else
  echo "install-peers: onnxruntime-node could not be installed (cd bench/peers && npm ci)" >&2
  status=1
fi
exit $status
