#!/usr/bin/env python3
"""CPU reference for the web bench: runs a tensorir web package's graph in float64 numpy.

  reference.py PACKAGE_DIR --input input.bin --output out.bin

The graph section of model.json is evaluated node by node from params.bin; the result is
written as float32. It is an independent check of how the peers read the graph.
"""
import argparse

import numpy as np

import webpkg


def conv2d(x, w, attrs):
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilation", [1, 1])
    g = attrs.get("groups", 1)
    t, l, b, r = webpkg.pads(attrs)
    x = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)))
    n, c, h, wd = x.shape
    k, cg, kh, kw = w.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    # patches[n, c, oh, ow, kh, kw] as a strided view, no copy
    s = x.strides
    patches = np.lib.stride_tricks.as_strided(
        x, (n, c, oh, ow, kh, kw), (s[0], s[1], s[2] * sh, s[3] * sw, s[2] * dh, s[3] * dw), writeable=False)
    outs = []
    for gi in range(g):
        pg = patches[:, gi * cg:(gi + 1) * cg]
        wg = w[gi * (k // g):(gi + 1) * (k // g)]
        outs.append(np.einsum("nchwrs,kcrs->nkhw", pg, wg, optimize=True))
    return np.concatenate(outs, axis=1)


def pool(x, attrs, kind):
    ph, pw = attrs["pool_size"]
    sh, sw = attrs.get("strides", [1, 1])
    t, l, b, r = webpkg.pads(attrs)
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=fill)
    oh = (xp.shape[2] - ph) // sh + 1
    ow = (xp.shape[3] - pw) // sw + 1
    s = xp.strides
    win = np.lib.stride_tricks.as_strided(xp, xp.shape[:2] + (oh, ow, ph, pw),
                                          s[:2] + (s[2] * sh, s[3] * sw, s[2], s[3]), writeable=False)
    if kind == "max":
        return win.max(axis=(4, 5))
    if attrs.get("count_include_pad", 1):
        return win.sum(axis=(4, 5)) / (ph * pw)
    ones = np.pad(np.ones(x.shape[2:]), ((t, b), (l, r)))
    so = ones.strides
    cnt = np.lib.stride_tricks.as_strided(ones, (oh, ow, ph, pw), (so[0] * sh, so[1] * sw, so[0], so[1])).sum(axis=(2, 3))
    return win.sum(axis=(4, 5)) / cnt


def channel_vector(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = v.size
    return v.reshape(shape)


def run(pkg, x):
    env = {k: v.astype(np.float64) for k, v in pkg.params.items()}
    env[pkg.input["name"]] = x.astype(np.float64).reshape(pkg.input["shape"])
    for n in pkg.nodes:
        a = n.get("attrs", {})
        i = [env[name] for name in n["inputs"]]
        op = n["op"]
        if op == "conv2d":
            y = conv2d(i[0], i[1], a)
        elif op == "bias_add":
            y = i[0] + channel_vector(i[1], i[0].ndim, a.get("axis", 1))
        elif op == "batch_norm":
            ax = 1
            scale = i[1] / np.sqrt(i[4] + a.get("eps", 1e-5))
            y = (i[0] - channel_vector(i[3], i[0].ndim, ax)) * channel_vector(scale, i[0].ndim, ax) \
                + channel_vector(i[2], i[0].ndim, ax)
        elif op == "relu":
            y = np.maximum(i[0], 0)
        elif op == "clip":
            y = np.clip(i[0], a["lo"], a["hi"])
        elif op == "add":
            y = i[0] + i[1]
        elif op == "multiply":
            y = i[0] * i[1]
        elif op == "max_pool2d":
            y = pool(i[0], a, "max")
        elif op == "avg_pool2d":
            y = pool(i[0], a, "avg")
        elif op == "global_avg_pool2d":
            y = i[0].mean(axis=(2, 3), keepdims=True)
        elif op == "flatten":
            y = i[0].reshape(i[0].shape[0], -1)
        elif op == "dense":
            y = i[0] @ i[1].T
        elif op == "softmax":
            ax = a.get("axis", 1)
            e = np.exp(i[0] - i[0].max(axis=ax, keepdims=True))
            y = e / e.sum(axis=ax, keepdims=True)
        else:
            raise SystemExit(f"reference: no rule for operator {op}")
        if list(y.shape) != list(n["shape"]):
            raise SystemExit(f"reference: node {n['name']} gives shape {list(y.shape)}, the graph says {n['shape']}")
        env[n["name"]] = y
    return env[pkg.output]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package")
    ap.add_argument("--input", required=True, help="float32 input, NCHW")
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    pkg = webpkg.load(args.package)
    x = np.fromfile(args.input, dtype="<f4")
    run(pkg, x).astype("<f4").tofile(args.output)


if __name__ == "__main__":
    main()
