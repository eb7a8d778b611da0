// Runs the models of an export_models.py directory on ONNX Runtime (onnxruntime-node):
// writes each case's output as <case>.ort.npy, and with --reps N times it and prints one
// JSON line per case ({"case", "threads", "median_ms", "version"}).
//
//   NODE_PATH=bench/peers/node_modules node bench/peers/onnxruntime_run.cjs DIR \
//       [--threads N] [--reps N] [--cases a,b]
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const NPY_TYPES = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array], '|b1': ['bool', Uint8Array]};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': Fortran order');
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  const type = NPY_TYPES[descr];
  if (!type) throw new Error(file + ': element type ' + descr + ' is not read here');
  const data = buf.subarray(start + headerLen);
  const bytes = new Uint8Array(data.length);
  bytes.set(data);  // aligned copy
  const values = type[0] === 'bool' ? Uint8Array.from(bytes).map((b) => b !== 0)
                                    : new type[1](bytes.buffer, 0, bytes.length / type[1].BYTES_PER_ELEMENT);
  return new ort.Tensor(type[0], type[0] === 'bool' ? Array.from(values) : values, shape);
}

function writeNpy(file, tensor) {
  if (tensor.type !== 'float32') throw new Error('only float32 outputs are written (' + tensor.type + ')');
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

async function main() {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: onnxruntime_run.cjs DIR [--threads N] [--reps N] [--cases a,b]');
  const threads = Number(arg('--threads', '0'));
  const reps = Number(arg('--reps', '0'));
  const only = arg('--cases', '');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const version = require('onnxruntime-node/package.json').version;
  for (const c of manifest.cases) {
    if (only && !only.split(',').includes(c.name)) continue;
    const options = {graphOptimizationLevel: 'all'};
    if (threads > 0) Object.assign(options, {intraOpNumThreads: threads, interOpNumThreads: 1});
    const session = await ort.InferenceSession.create(path.join(dir, c.name + '.onnx'), options);
    const feeds = {};
    c.inputs.forEach((name, k) => { feeds[name] = readNpy(path.join(dir, c.input_files[k])); });
    const out = await session.run(feeds);
    writeNpy(path.join(dir, c.name + '.ort.npy'), out[c.output]);
    if (reps > 0) {
      const times = [];
      for (let i = 0; i < reps; ++i) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      times.sort((a, b) => a - b);
      const median = times.length % 2 ? times[(times.length - 1) / 2]
                                       : 0.5 * (times[times.length / 2 - 1] + times[times.length / 2]);
      console.log(JSON.stringify({case: c.name, threads, median_ms: median, version}));
    }
    await session.release();
  }
}

main().catch((e) => {
  console.error('onnxruntime_run: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
