#!/usr/bin/python3
"""Exports real networks from PyTorch to ONNX with seeded random weights, for the checks
against PyTorch and ONNX Runtime (make check-models) and for bench_onnx.

  scripts/export_models.py --out DIR [--models resnet18,bert,...] [--opsets 13,17]

For each model and opset, DIR gets <case>.onnx (case = <model>_op<opset>), the inputs as
<case>.in<K>.npy in the model's input order, and PyTorch's output as <case>.torch.npy.
DIR/manifest.json lists the cases: name, model, opset, input names, files, output name;
DIR/manifest.tsv the same, a case per line: name, output name, NAME=FILE per input. Cases
exported into DIR before stay in the manifest unless exported again.
Models (torchvision 0.14 with random weights, eval mode, batch 1):
  resnet18 resnet50 mobilenet_v2 squeezenet1_1 efficientnet_b0 vit_b_16 (1x3x224x224)
  lraspp_mobilenet_v3_large (segmentation, 1x3x224x224, output "out")
  bert: torch.nn.TransformerEncoder of BERT-base size (12 layers, d_model 768, 12 heads,
        feed-forward 3072, GELU, post-norm) on 1x128x768 with a padding mask (the last 32
        positions padded); --bert-layers sets the depth
  gpt: a GPT-style decoder: token and position embeddings, TransformerEncoder layers with
       a causal mask (pre-norm), a final LayerNorm and the vocabulary projection, on 64 token ids
Needs Debian's python3-torch and python3-torchvision (bench/install-peers.sh installs them).
"""
import argparse
import json
import os
import sys

CLASSIFIERS = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0", "vit_b_16"]
SEGMENTERS = ["lraspp_mobilenet_v3_large"]
ALL = CLASSIFIERS + SEGMENTERS + ["bert", "gpt"]


def image_model(torch, torchvision, name):
    if name in SEGMENTERS:
        net = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None)

        class Out(torch.nn.Module):  # the dict's "out" entry, as a tensor
            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, x):
                return self.net(x)["out"]

        net = Out(net)
    else:
        net = getattr(torchvision.models, name)(weights=None)
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    return net, (x,), ["input"], ["output"]


def bert(torch, layers):
    layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, activation="gelu",
                                             batch_first=True)

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)

        def forward(self, x, padding):
            return self.enc(x, src_key_padding_mask=padding)

    g = torch.Generator().manual_seed(1)
    x = torch.randn(1, 128, 768, generator=g)
    padding = torch.zeros(1, 128, dtype=torch.bool)
    padding[:, 96:] = True
    return Encoder(), (x, padding), ["x", "padding"], ["output"]


def gpt(torch, layers):
    vocab, d, seq = 8000, 768, 64

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens = torch.nn.Embedding(vocab, d)
            self.positions = torch.nn.Parameter(torch.randn(1, seq, d) * 0.02)
            layer = torch.nn.TransformerEncoderLayer(d_model=d, nhead=12, dim_feedforward=4 * d, activation="gelu",
                                                     batch_first=True, norm_first=True)
            self.blocks = torch.nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
            self.norm = torch.nn.LayerNorm(d)
            self.head = torch.nn.Linear(d, vocab, bias=False)
            self.register_buffer("causal", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

        def forward(self, ids):
            h = self.tokens(ids) + self.positions
            return self.head(self.norm(self.blocks(h, mask=self.causal)))

    ids = torch.randint(0, vocab, (1, seq), generator=torch.Generator().manual_seed(1))
    return Decoder(), (ids,), ["ids"], ["logits"]


def build_model(torch, torchvision, name, bert_layers=12, gpt_layers=6):
    """The seeded model `name` in eval mode, its inputs, input and output names (bench_onnx's
    PyTorch rows rebuild it with this)."""
    torch.manual_seed(0)
    if name == "bert":
        net, inputs, in_names, out_names = bert(torch, bert_layers)
    elif name == "gpt":
        net, inputs, in_names, out_names = gpt(torch, gpt_layers)
    else:
        net, inputs, in_names, out_names = image_model(torch, torchvision, name)
    for prm in net.parameters():
        # TransformerEncoder copies one layer: give each its own weights. Weights that
        # start at zero (ViT's classifier) get random ones, so that outputs are not zero.
        if prm.dim() > 1 and (name in ("bert", "gpt") or not prm.detach().any()):
            torch.nn.init.xavier_uniform_(prm)
    return net.eval(), inputs, in_names, out_names


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--models", default=",".join(ALL))
    p.add_argument("--opsets", default="13,17")
    p.add_argument("--bert-layers", type=int, default=12)
    p.add_argument("--gpt-layers", type=int, default=6)
    a = p.parse_args()
    try:
        import numpy as np
        import torch
        import torchvision
    except ImportError as e:
        sys.exit("export_models: %s: install python3-torch and python3-torchvision (bench/install-peers.sh)" % e)
    models = [m for m in a.models.split(",") if m]
    for m in models:
        if m not in ALL:
            sys.exit("export_models: unknown model '%s' (known: %s)" % (m, ", ".join(ALL)))
    os.makedirs(a.out, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    cases = []
    for name in models:
        net, inputs, in_names, out_names = build_model(torch, torchvision, name, a.bert_layers, a.gpt_layers)
        with torch.no_grad():
            want = net(*inputs).numpy()
        for opset in [int(o) for o in a.opsets.split(",")]:
            case = "%s_op%d" % (name, opset)
            path = os.path.join(a.out, case + ".onnx")
            # Grad stays on for the export: TransformerEncoder's fused inference path,
            # which the exporter cannot trace, is taken only without it.
            torch.onnx.export(net, inputs, path, input_names=in_names, output_names=out_names, opset_version=opset,
                              do_constant_folding=True)
            files = []
            for k, x in enumerate(inputs):
                f = "%s.in%d.npy" % (case, k)
                np.save(os.path.join(a.out, f), x.numpy())
                files.append(f)
            np.save(os.path.join(a.out, case + ".torch.npy"), want)
            cases.append({"name": case, "model": name, "opset": opset, "inputs": in_names, "input_files": files,
                          "output": out_names[0], "torch": case + ".torch.npy"})
            print("exported %s (%.1f MB)" % (case, os.path.getsize(path) / 1e6), flush=True)
    # Cases exported earlier into DIR stay listed, unless exported again now.
    manifest = os.path.join(a.out, "manifest.json")
    if os.path.exists(manifest):
        with open(manifest) as f:
            names = {c["name"] for c in cases}
            cases = [c for c in json.load(f)["cases"] if c["name"] not in names] + cases
    with open(manifest, "w") as f:
        json.dump({"torch": torch.__version__, "torchvision": torchvision.__version__, "cases": cases}, f, indent=1)
    # The same for C++ readers, a case per line: name, output, then NAME=FILE per input.
    with open(os.path.join(a.out, "manifest.tsv"), "w") as f:
        for c in cases:
            ins = ["%s=%s" % (n, fl) for n, fl in zip(c["inputs"], c["input_files"])]
            f.write("\t".join([c["name"], c["output"]] + ins) + "\n")


if __name__ == "__main__":
    main()
