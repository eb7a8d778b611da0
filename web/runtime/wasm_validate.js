// Checks of a WebAssembly package's model.json ("tensorir-wasm") before anything runs:
// every offset inside the memory, every tensor float32 where run() hands out arrays.
import { check } from './errors.js';
import { numel } from './inputs.js';

export const WASM_FORMAT = 'tensorir-wasm';
export const WASM_VERSION = 1;

const isInt = (v) => Number.isSafeInteger(v);

function checkTensor(t, what, memoryBytes) {
  check(t && typeof t.name === 'string', `model.json: ${what} has no "name"`);
  const name = `${what} "${t.name}"`;
  check(Array.isArray(t.shape) && t.shape.every((d) => isInt(d) && d >= 0),
        () => `model.json: ${name} has an invalid shape ${JSON.stringify(t.shape)}`);
  check(t.dtype === 'float32',
        () => `model.json: ${name} has dtype ${JSON.stringify(t.dtype)}; inputs and outputs are float32`);
  check(isInt(t.offset) && t.offset >= 0 && t.offset % 4 === 0 &&
            t.offset + numel(t.shape) * 4 <= memoryBytes,
        () => `model.json: ${name} at offset ${t.offset} does not lie inside the model's ` +
              `${memoryBytes} bytes of memory`);
}

export function validateWasmModel(model, url = 'model.json') {
  check(model.version === WASM_VERSION,
        () => `${url} has WebAssembly package format version ${JSON.stringify(model.version)}, but ` +
              `this runtime supports version ${WASM_VERSION}; export the model again with the ` +
              'tensorir that ships this runtime');
  const memory = model.memory;
  check(memory && isInt(memory.bytes) && memory.bytes > 0 && isInt(memory.align) && memory.align > 0,
        'model.json: "memory" must give "bytes" and "align"');
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
  for (const key of ['inputs', 'outputs']) {
    check(Array.isArray(model[key]) && model[key].length > 0, `model.json: "${key}" must be a non-empty list`);
    model[key].forEach((t) => checkTensor(t, key.slice(0, -1), memory.bytes));
  }
  check(Array.isArray(model.kernels), 'model.json: "kernels" must be a list');
  model.kernels.forEach((k, i) => {
    check(k && typeof k.name === 'string', `model.json: kernel #${i} has no "name"`);
    check(Array.isArray(k.args) && k.args.every((a) => isInt(a) && a >= 0 && a < memory.bytes &&
                                                       a % memory.align === 0),
          () => `model.json: kernel ${k.name} has arguments outside the model's memory or unaligned`);
  });
}
