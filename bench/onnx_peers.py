#!/usr/bin/python3
"""PyTorch's latency on the networks of scripts/export_models.py, for bench_onnx.

  onnx_peers.py --model NAME --threads N [--reps 10] [--inputs a.npy,b.npy] [--json]

Rebuilds the PyTorch model that export_models.py exported (its build_model: the same
constructor, seed and weights, eval mode) and times it under torch.no_grad() with
torch.set_num_threads(N): median of --reps runs after a warm-up. --inputs: the exported inputs (.npy, in the model's input
order); without them the export's own inputs are rebuilt. Prints one line: a JSON object
(--json) or plain text.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import export_models as em  # noqa: E402  (the constructors the export used)


def bench_torch(a):
    import numpy as np
    import torch
    import torchvision

    torch.set_num_threads(a.threads)
    if a.model not in em.ALL:
        raise ValueError("unknown model '%s' (known: %s)" % (a.model, ", ".join(em.ALL)))
    net, inputs, _, _ = em.build_model(torch, torchvision, a.model, a.bert_layers, a.gpt_layers)
    if a.inputs:
        inputs = tuple(torch.from_numpy(np.load(f)) for f in a.inputs.split(","))
    times = []
    with torch.no_grad():
        for _ in range(2):
            net(*inputs)
        for _ in range(a.reps):
            t0 = time.perf_counter()
            net(*inputs)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), "torch " + torch.__version__


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--inputs", default="")
    p.add_argument("--bert-layers", type=int, default=12)
    p.add_argument("--gpt-layers", type=int, default=6)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    row = {"bench": "onnx", "case": a.model, "impl": "pytorch", "threads": a.threads}
    try:
        ms, version = bench_torch(a)
    except Exception as e:  # report, so the calling benchmark can print why
        print(json.dumps(dict(row, error=str(e))) if a.json else "error: %s" % e)
        return 1
    if a.json:
        print(json.dumps(dict(row, median_ms=round(ms, 4), version=version)))
    else:
        print("%s, %s, %d threads: %.2f ms (median of %d)" % (version, a.model, a.threads, ms, a.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
