#!/usr/bin/env python3
"""ResNet-18 latency of the peer frameworks, for bench_resnet18.

  resnet18_peers.py --threads N [--engine pytorch|onnxruntime] [--reps 20] [--json]

pytorch: torchvision's resnet18 with random weights, eval mode, under torch.no_grad(), on
one random 1x3x224x224 image, torch.set_num_threads(N); median of --reps runs after a
warm-up. onnxruntime: the same model exported to ONNX, run by onnxruntime-node (Node.js)
with N intra-op threads. Prints one line: a JSON object (--json) or plain text.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASE = "1x3x224x224"


def torch_model(threads):
    import torch
    import torchvision

    torch.manual_seed(0)
    torch.set_num_threads(threads)
    model = torchvision.models.resnet18().eval()  # random weights: only time matters here
    return torch, model, torch.randn(1, 3, 224, 224)


def bench_torch(threads, reps):
    torch, model, x = torch_model(threads)
    times = []
    with torch.no_grad():
        for _ in range(3):
            model(x)
        for _ in range(reps):
            t0 = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), "torch " + torch.__version__


# Runs inside node: loads the exported model, times session.run, prints the median.
NODE_SCRIPT = r"""
const ort = require('onnxruntime-node');
const [path, threads, reps] = [process.argv[1], +process.argv[2], +process.argv[3]];
(async () => {
  const s = await ort.InferenceSession.create(path, {intraOpNumThreads: threads, interOpNumThreads: 1});
  const x = new ort.Tensor('float32', Float32Array.from({length: 3 * 224 * 224}, () => Math.random()),
                           [1, 3, 224, 224]);
  const feeds = {[s.inputNames[0]]: x};
  for (let i = 0; i < 3; ++i) await s.run(feeds);
  const t = [];
  for (let i = 0; i < reps; ++i) {
    const t0 = process.hrtime.bigint();
    await s.run(feeds);
    t.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  t.sort((a, b) => a - b);
  const n = t.length;
  const med = n % 2 ? t[(n - 1) / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  console.log(JSON.stringify({median_ms: med, version: require('onnxruntime-node/package.json').version}));
})().catch(e => { console.error(String(e)); process.exit(1); });
"""


def bench_onnxruntime(threads, reps):
    torch, model, x = torch_model(threads)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "resnet18.onnx")
        torch.onnx.export(model, x, path, input_names=["data"], output_names=["logits"], opset_version=13)
        out = subprocess.run(["node", "-e", NODE_SCRIPT, path, str(threads), str(reps)],
                             capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError("onnxruntime-node failed: " + out.stderr.strip())
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return r["median_ms"], "onnxruntime-node " + r["version"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--engine", choices=["pytorch", "onnxruntime"], default="pytorch")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    run = bench_torch if a.engine == "pytorch" else bench_onnxruntime
    try:
        ms, version = run(a.threads, a.reps)
    except Exception as e:  # report, so the calling benchmark can print why
        print(json.dumps({"bench": "resnet18", "case": CASE, "impl": a.engine, "threads": a.threads,
                          "error": str(e)}) if a.json else "error: %s" % e)
        return 1
    if a.json:
        print(json.dumps({"bench": "resnet18", "case": CASE, "impl": a.engine, "threads": a.threads,
                          "median_ms": round(ms, 4), "version": version}))
    else:
        print("%s, %d threads: %.2f ms (median of %d)" % (version, a.threads, ms, a.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
