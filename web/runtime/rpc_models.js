// Whole models sent over RPC: a web package of one build (graph::export_web without the
// runtime files: model.json, params.bin, model.wasm), loaded by tensorir.load() from
// Blob URLs, and the inputs and outputs of run_model as the protocol carries them.
import { ioArray } from './dtypes.js';
import { check, fail } from './errors.js';
import { numel } from './inputs.js';
import { asBytes } from './rpc_protocol.js';
import { load } from './tensorir.js';

// The entries of model.json that name a file of the package.
const FILE_KEYS = ['params', 'module', 'threaded_module'];

// Resolves to the loaded model; `files` maps each file's name to its bytes. Every file
// model.json names must be there, except model.threads.wasm (without it, one thread).
export async function loadWebPackage(files, canvas, what) {
  check(files.has('model.json'), () => `${what}: the files sent (${[...files.keys()].join(', ')}) have no model.json`);
  let json;
  try {
    json = JSON.parse(new TextDecoder().decode(files.get('model.json')));
  } catch (e) {
    fail(`${what}: model.json is not JSON (${e.message})`);
  }
  check(json && typeof json === 'object' && json.format !== 'tensorir-index',
        () => `${what}: send a web package of one build (webgl or wasm), not a package index`);
  const urls = [];
  const url = (bytes, type) => {
    urls.push(URL.createObjectURL(new Blob([bytes], { type })));
    return urls[urls.length - 1];
  };
  let threads;
  try {
    for (const key of FILE_KEYS) {
      const entry = json[key];
      if (!entry || typeof entry.file !== 'string') continue;
      if (!files.has(entry.file)) {
        check(key === 'threaded_module', () => `${what}: model.json names ${entry.file}, which was not sent`);
        threads = 1;
        continue;
      }
      entry.file = url(files.get(entry.file), entry.file.endsWith('.wasm') ? 'application/wasm' : '');
    }
    const modelUrl = url(JSON.stringify(json), 'application/json');
    return await load({ modelUrl, canvas, threads });
  } finally {
    for (const u of urls) URL.revokeObjectURL(u);
  }
}

// run()'s inputs from the request's [{name, bytes}] and the payload holding them in turn.
export function modelInputs(model, list, payload) {
  check(Array.isArray(list), 'the request has no "inputs" list of {name, bytes}');
  const bytes = asBytes(payload);
  const inputs = {};
  let at = 0;
  for (const item of list) {
    const spec = model.inputs.find((t) => t.name === (item && item.name));
    check(spec, () => `the model has no input ${JSON.stringify(item && item.name)}; its inputs are ` +
                      model.inputs.map((t) => `"${t.name}"`).join(', '));
    const Array_ = ioArray(spec.dtype);
    const want = numel(spec.shape) * Array_.BYTES_PER_ELEMENT;
    check(item.bytes === want, () => `input "${spec.name}" (${spec.dtype} [${spec.shape}]) has ${want} bytes, ` +
                                     `but the request gives ${item.bytes}`);
    check(at + want <= bytes.length, () => `the payload has ${bytes.length} bytes, fewer than the inputs listed`);
    inputs[spec.name] = new Array_(bytes.slice(at, at + want).buffer);
    at += want;
  }
  check(at === bytes.length, () => `the payload has ${bytes.length} bytes, but the inputs listed take ${at}`);
  return inputs;
}

// run_model's reply: every output, in the model's order, and their bytes one after another.
export function modelOutputs(model, outputs) {
  const list = model.outputs.map((t) => ({
    name: t.name, shape: [...t.shape], dtype: t.dtype, bytes: outputs[t.name].byteLength,
  }));
  const payload = new Uint8Array(list.reduce((n, t) => n + t.bytes, 0));
  let at = 0;
  for (const t of model.outputs) {
    payload.set(asBytes(outputs[t.name]), at);
    at += outputs[t.name].byteLength;
  }
  return { header: { outputs: list }, payload };
}
