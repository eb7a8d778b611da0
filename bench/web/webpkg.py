"""Reads a tensorir web package (model.json + params.bin) for the peers of the web bench.

load(dir) gives the graph section (nodes after the graph passes), the parameters as float32
numpy arrays by name, the input and the output the bench compares.
"""
import json
import os

import numpy as np

# Operators the peers know how to rebuild; any other op is an error naming it.
KNOWN_OPS = {"conv2d", "bias_add", "relu", "clip", "add", "multiply", "max_pool2d", "avg_pool2d",
             "global_avg_pool2d", "flatten", "dense", "softmax", "batch_norm"}


class Package:
    def __init__(self, model, params, nodes):
        self.model = model
        self.params = params  # name -> np.float32 array in its model.json shape
        self.nodes = nodes    # operator nodes in graph order (input/constant nodes dropped)
        self.input = model["inputs"][0]
        names = {n["name"] for n in nodes}
        out = model["outputs"][0]["name"]
        self.output = out if out in names else nodes[-1]["name"]
        self.output_shape = model["outputs"][0]["shape"]


def load(pkg_dir):
    with open(os.path.join(pkg_dir, "model.json")) as f:
        model = json.load(f)
    if model.get("format") != "tensorir-web":
        raise SystemExit(f"{pkg_dir}/model.json: not a tensorir web model")
    if "graph" not in model or not model["graph"].get("nodes"):
        raise SystemExit(f"{pkg_dir}/model.json has no graph section: the peers are rebuilt from it")
    p = model["params"]
    blob = np.fromfile(os.path.join(pkg_dir, p.get("file", "params.bin")), dtype="<f4")
    if blob.nbytes != p["bytes"]:
        raise SystemExit(f"params.bin has {blob.nbytes} bytes, model.json says {p['bytes']}")
    params = {}
    for t in p["tensors"]:
        n = int(np.prod(t["shape"])) if t["shape"] else 1
        start = t["offset"] // 4
        params[t["name"]] = blob[start:start + n].reshape(t["shape"])
    nodes = []
    for n in model["graph"]["nodes"]:
        if n["op"] in ("input", "constant"):
            continue
        if n["op"] not in KNOWN_OPS:
            raise SystemExit(f"graph node {n['name']}: operator '{n['op']}' is not supported by the peers")
        nodes.append(n)
    pkg = Package(model, params, nodes)
    _check_shapes(pkg)
    return pkg


def _check_shapes(pkg):
    """Weights must be in the graph's own layout ([K, C/groups, R, S], [out, in])."""
    shapes = {pkg.input["name"]: pkg.input["shape"]}
    shapes.update({k: list(v.shape) for k, v in pkg.params.items()})
    for n in pkg.nodes:
        for i in n["inputs"]:
            if i not in shapes:
                raise SystemExit(f"graph node {n['name']}: input '{i}' is neither a node, a param nor a model input")
        if n["op"] == "conv2d":
            x, w = shapes[n["inputs"][0]], shapes[n["inputs"][1]]
            g = n["attrs"].get("groups", 1)
            if len(w) != 4 or w[0] != n["shape"][1] or w[1] * g != x[1]:
                raise SystemExit(f"conv2d {n['name']}: weight {n['inputs'][1]} has shape {w}, "
                                 f"expected [{n['shape'][1]}, {x[1] // g}, R, S]")
        if n["op"] == "dense":
            x, w = shapes[n["inputs"][0]], shapes[n["inputs"][1]]
            if len(w) != 2 or w[1] != x[1]:
                raise SystemExit(f"dense {n['name']}: weight {n['inputs'][1]} has shape {w}, expected [out, {x[1]}]")
        shapes[n["name"]] = n["shape"]


def pads(attrs, key="padding"):
    """[top, left, bottom, right] from a 2-value (symmetric) or 4-value padding attr."""
    p = list(attrs.get(key, [0, 0]))
    return [p[0], p[1], p[0], p[1]] if len(p) == 2 else p
