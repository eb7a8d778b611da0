// Checks of a WebAssembly package's model.json ("tensorir-wasm") before anything runs:
// every offset inside the memory and aligned, every tensor float32 where run() hands out
// arrays, and the regions apart: an input or output laid over the weights (params.bin)
// would overwrite them at the first run, and a misaligned offset would fail inside the
// engine with a message about typed arrays.
import { check } from './errors.js';
import { numel } from './inputs.js';

export const WASM_FORMAT = 'tensorir-wasm';
export const WASM_VERSION = 1;

const isInt = (v) => Number.isSafeInteger(v);
const DAMAGED = 'the package is damaged or was edited by hand; export it again';

function checkTensor(t, what, memoryBytes) {
  check(t && typeof t.name === 'string', `model.json: ${what} has no "name"`);
  const name = `${what} "${t.name}"`;
  check(Array.isArray(t.shape) && t.shape.every((d) => isInt(d) && d >= 0),
        () => `model.json: ${name} has an invalid shape ${JSON.stringify(t.shape)}`);
  check(t.dtype === 'float32',
        () => `model.json: ${name} has dtype ${JSON.stringify(t.dtype)}; inputs and outputs are float32`);
  check(isInt(t.offset) && t.offset >= 0 && t.offset + numel(t.shape) * 4 <= memoryBytes,
        () => `model.json: ${name} at offset ${t.offset} does not lie inside the model's ` +
              `${memoryBytes} bytes of memory; ${DAMAGED}`);
  check(t.offset % 4 === 0,
        () => `model.json: ${name} is at offset ${t.offset}, which is not a multiple of 4 as a float32 ` +
              `array needs; ${DAMAGED}`);
}

// [start, end) of a tensor in the memory.
const span = (t) => [t.offset, t.offset + numel(t.shape) * 4];
const overlap = ([a0, a1], [b0, b1]) => a0 < b1 && b0 < a1;

// The weights (params.bin, at offset 0), the inputs and the outputs must not share bytes;
// an output may be an input itself (a graph that only passes its input through).
function checkRegions(model) {
  const weights = [0, model.params.bytes];
  const tensors = [...model.inputs.map((t) => ['input', t]), ...model.outputs.map((t) => ['output', t])];
  for (const [what, t] of tensors) {
    check(!overlap(span(t), weights),
          () => `model.json: ${what} "${t.name}" at bytes [${span(t)[0]}, ${span(t)[1]}) overlaps the weights ` +
                `(params.bin, bytes [0, ${weights[1]})), which running the model would overwrite; ${DAMAGED}`);
  }
  tensors.forEach(([what, t], i) => {
    for (const [otherWhat, o] of tensors.slice(i + 1)) {
      const same = what !== otherWhat && span(t)[0] === span(o)[0] && span(t)[1] === span(o)[1];
      check(same || !overlap(span(t), span(o)),
            () => `model.json: ${what} "${t.name}" (bytes [${span(t)[0]}, ${span(t)[1]})) and ${otherWhat} ` +
                  `"${o.name}" (bytes [${span(o)[0]}, ${span(o)[1]})) overlap; ${DAMAGED}`);
    }
  });
  // Kernel arguments: a weight or an input where one starts, else scratch (results and
  // temporaries), which lies past the weights and clear of the inputs.
  const starts = new Set([...(model.params.tensors || []).map((p) => p.offset), ...tensors.map(([, t]) => t.offset)]);
  for (const k of model.kernels) {
    for (const a of k.args) {
      if (starts.has(a)) continue;
      const inside = a < weights[1] ? 'the weights' : model.inputs.find((t) => overlap([a, a + 1], span(t)));
      check(!inside, () => `model.json: kernel ${k.name} has an argument at offset ${a}, inside ` +
                           `${inside === 'the weights' ? inside : `input "${inside.name}"`} but not at the start of ` +
                           `a tensor there; ${DAMAGED}`);
    }
  }
}

export function validateWasmModel(model, url = 'model.json') {
  check(model.version === WASM_VERSION,
        () => `${url} has WebAssembly package format version ${JSON.stringify(model.version)}, but ` +
              `this runtime supports version ${WASM_VERSION}; export the model again with the ` +
              'tensorir that ships this runtime');
  const memory = model.memory;
  check(memory && isInt(memory.bytes) && memory.bytes > 0 && isInt(memory.align) && memory.align > 0,
        'model.json: "memory" must give "bytes" and "align"');
  // The runtime lays its 8-byte argument slots right after the model's memory.
  check(memory.align >= 8 && (memory.align & (memory.align - 1)) === 0 && memory.bytes % memory.align === 0,
        () => `model.json: "memory" has bytes ${memory.bytes} and align ${memory.align}; align must be a power ` +
              `of two of at least 8 and bytes a multiple of it; ${DAMAGED}`);
  for (const key of ['module', 'threaded_module', 'params']) {
    const f = model[key];
    check(f && typeof f.file === 'string' && isInt(f.bytes) && f.bytes >= 0,
          `model.json: "${key}" must give "file" and "bytes"`);
    check(typeof f.fnv1a32 === 'string' && /^0x[0-9a-fA-F]{8}$/.test(f.fnv1a32),
          `model.json: "${key}.fnv1a32" must be a hex string like "0x1234abcd"`);
  }
  check(isInt(model.threaded_module.max_memory) && model.threaded_module.max_memory % 65536 === 0,
        'model.json: "threaded_module.max_memory" must be a whole number of 64 KiB pages');
  check(model.params.bytes <= memory.bytes, 'model.json: params.bin is larger than the model\'s memory');
  check(model.params.tensors === undefined ||
            (Array.isArray(model.params.tensors) &&
             model.params.tensors.every((p) => p && isInt(p.offset) && p.offset >= 0 && p.offset < model.params.bytes)),
        () => `model.json: "params.tensors" must list weights at offsets inside params.bin; ${DAMAGED}`);
  for (const key of ['inputs', 'outputs']) {
    check(Array.isArray(model[key]) && model[key].length > 0, `model.json: "${key}" must be a non-empty list`);
    model[key].forEach((t) => checkTensor(t, key.slice(0, -1), memory.bytes));
  }
  check(Array.isArray(model.kernels), 'model.json: "kernels" must be a list');
  model.kernels.forEach((k, i) => {
    check(k && typeof k.name === 'string', `model.json: kernel #${i} has no "name"`);
    check(Array.isArray(k.args) && k.args.every((a) => isInt(a) && a >= 0 && a < memory.bytes),
          () => `model.json: kernel ${k.name} has arguments outside the model's memory; ${DAMAGED}`);
    const odd = k.args.find((a) => a % memory.align !== 0);
    check(odd === undefined,
          () => `model.json: kernel ${k.name} has an argument at offset ${odd}, which is not a multiple of the ` +
                `model's alignment (${memory.align} bytes) that its code assumes; ${DAMAGED}`);
  });
  checkRegions(model);
}
