// Checking the inputs handed to run(): every input named, none unknown, each the typed
// array of its dtype (a Float32Array, or BigInt64Array, Int32Array, Uint8Array for bool; or
// an array of numbers) with as many values as its shape has.
import { toIoArray } from './dtypes.js';
import { check } from './errors.js';

export function numel(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

// Returns one typed array per entry of `specs` ({name, shape, dtype}), in that order.
export function checkInputs(specs, inputs, modelName) {
  check(inputs !== null && typeof inputs === 'object',
        () => `run() takes an object {${specs.map((t) => t.name).join(', ')}} of typed arrays`);
  const known = new Set(specs.map((t) => t.name));
  for (const name of Object.keys(inputs)) {
    check(known.has(name), () => `model ${modelName} has no input "${name}"; its inputs ` +
                                 `are ${[...known].map((n) => `"${n}"`).join(', ')}`);
  }
  return specs.map((t) => {
    let data = inputs[t.name];
    check(data !== undefined, `input "${t.name}" is missing`);
    data = toIoArray(data, t.dtype || 'float32', `input "${t.name}"`);
    const n = numel(t.shape);
    check(data.length === n,
          `input "${t.name}" has ${data.length} values, but its shape [${t.shape.join(', ')}] has ${n}`);
    return data;
  });
}
