#!/usr/bin/env python3
"""Exports a tensorir web package's graph to ONNX (opset 13) for ONNX Runtime Web.

  to_onnx.py PACKAGE_DIR -o model.onnx

The weights come from params.bin unchanged. conv2d followed by its bias_add becomes one
Conv with a bias, dense followed by its bias_add one Gemm (transB=1): the form an ONNX
exporter gives for the same network.
"""
import argparse

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as onh

import webpkg


def readers(nodes, output):
    count = {}
    for n in nodes:
        for i in n["inputs"]:
            count[i] = count.get(i, 0) + 1
    count[output] = count.get(output, 0) + 1
    return count


class Exporter:
    def __init__(self, pkg):
        self.pkg = pkg
        self.onnx_nodes = []
        self.inits = {}
        self.alias = {}  # graph value name -> ONNX value name (when a node was folded away)

    def init(self, name, array):
        if name not in self.inits:
            self.inits[name] = onh.from_array(np.ascontiguousarray(array, dtype=np.float32), name)
        return name

    def value(self, name):
        name = self.alias.get(name, name)
        if name in self.pkg.params:
            return self.init(name, self.pkg.params[name])
        return name

    def emit(self, op, inputs, output, name, **attrs):
        self.onnx_nodes.append(oh.make_node(op, inputs, [output], name=name, **attrs))

    def export(self):
        pkg = self.pkg
        nodes = pkg.nodes
        by_name = {n["name"]: n for n in nodes}
        nread = readers(nodes, pkg.output)
        # conv2d/dense whose only reader is a bias_add on axis 1 with a parameter bias
        fused_bias = {}
        for n in nodes:
            if n["op"] == "bias_add" and n["attrs"].get("axis", 1) == 1:
                src, bias = n["inputs"]
                if src in by_name and by_name[src]["op"] in ("conv2d", "dense") and nread.get(src) == 1 \
                        and bias in pkg.params:
                    fused_bias[src] = n["name"]
        skip = set(fused_bias.values())
        for n in nodes:
            if n["name"] in skip:
                continue
            self.node(n, fused_bias)
        out_name = self.alias.get(pkg.output, pkg.output)
        x = pkg.input
        graph = oh.make_graph(
            self.onnx_nodes, pkg.model.get("name", "model"),
            [oh.make_tensor_value_info(x["name"], onnx.TensorProto.FLOAT, x["shape"])],
            [oh.make_tensor_value_info(out_name, onnx.TensorProto.FLOAT, pkg.output_shape)],
            list(self.inits.values()))
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)], producer_name="tensorir-bench-web")
        model.ir_version = 7  # opset 13's IR version, readable by every ONNX Runtime Web
        onnx.checker.check_model(model)
        return model

    def node(self, n, fused_bias):
        pkg, a, name = self.pkg, n.get("attrs", {}), n["name"]
        ins = [self.value(i) for i in n["inputs"]]
        out = name
        op = n["op"]
        if op in ("conv2d", "dense") and name in fused_bias:
            bias_node = next(m for m in pkg.nodes if m["name"] == fused_bias[name])
            ins.append(self.value(bias_node["inputs"][1]))
            out = bias_node["name"]
        if op == "conv2d":
            w = pkg.params[n["inputs"][1]]
            self.emit("Conv", ins, out, name, kernel_shape=list(w.shape[2:]), strides=a.get("strides", [1, 1]),
                      pads=webpkg.pads(a), dilations=a.get("dilation", [1, 1]),
                      group=a.get("groups", 1))
        elif op == "dense":
            self.emit("Gemm", ins, out, name, transB=1)
        elif op == "bias_add":
            ndim = len(n["shape"])
            axis = a.get("axis", 1)
            b = pkg.params.get(n["inputs"][1])
            if b is None:
                raise SystemExit(f"bias_add {name}: the bias must be a parameter")
            shape = [1] * ndim
            shape[axis] = b.size
            self.emit("Add", [ins[0], self.init(n["inputs"][1] + ".bcast", b.reshape(shape))], out, name)
        elif op == "batch_norm":
            self.emit("BatchNormalization", ins, out, name, epsilon=float(a.get("eps", 1e-5)))
        elif op == "relu":
            self.emit("Relu", ins, out, name)
        elif op == "clip":
            lo = self.init(name + ".lo", np.array(a["lo"], dtype=np.float32))
            hi = self.init(name + ".hi", np.array(a["hi"], dtype=np.float32))
            self.emit("Clip", [ins[0], lo, hi], out, name)
        elif op == "add":
            self.emit("Add", ins, out, name)
        elif op == "multiply":
            self.emit("Mul", ins, out, name)
        elif op == "max_pool2d":
            self.emit("MaxPool", ins, out, name, kernel_shape=a["pool_size"], strides=a.get("strides", [1, 1]),
                      pads=webpkg.pads(a))
        elif op == "avg_pool2d":
            self.emit("AveragePool", ins, out, name, kernel_shape=a["pool_size"], strides=a.get("strides", [1, 1]),
                      pads=webpkg.pads(a), count_include_pad=int(a.get("count_include_pad", 1)))
        elif op == "global_avg_pool2d":
            self.emit("GlobalAveragePool", ins, out, name)
        elif op == "flatten":
            self.emit("Flatten", ins, out, name, axis=1)
        elif op == "softmax":
            self.emit("Softmax", ins, out, name, axis=a.get("axis", 1))
        else:
            raise SystemExit(f"to_onnx: no rule for operator {op}")
        if out != name:
            self.alias[name] = out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    model = Exporter(webpkg.load(args.package)).export()
    onnx.save(model, args.output)


if __name__ == "__main__":
    main()
