// Checking the inputs handed to run(): every input named, none unknown, each a Float32Array
// (or an array of numbers) with as many values as its shape has.
import { check } from './errors.js';

export function numel(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

// Returns one Float32Array per entry of `specs` ({name, shape}), in that order.
export function checkInputs(specs, inputs, modelName) {
  check(inputs !== null && typeof inputs === 'object',
        () => `run() takes an object {${specs.map((t) => t.name).join(', ')}} of Float32Arrays`);
  const known = new Set(specs.map((t) => t.name));
  for (const name of Object.keys(inputs)) {
    check(known.has(name), () => `model ${modelName} has no input "${name}"; its inputs ` +
                                 `are ${[...known].map((n) => `"${n}"`).join(', ')}`);
  }
  return specs.map((t) => {
    let data = inputs[t.name];
    check(data !== undefined, `input "${t.name}" is missing`);
    if (!(data instanceof Float32Array)) {
      check(ArrayBuffer.isView(data) || Array.isArray(data), `input "${t.name}" must be a Float32Array`);
      data = Float32Array.from(data);
    }
    const n = numel(t.shape);
    check(data.length === n,
          `input "${t.name}" has ${data.length} values, but its shape [${t.shape.join(', ')}] has ${n}`);
    return data;
  });
}
