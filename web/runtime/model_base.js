// What every loaded model has, whatever runs its kernels (WebGL2: executor.js, WebAssembly:
// wasm_model.js): its name, inputs and outputs, run() over the backend's runSync(), seeded
// inputs, and the per-kernel profile built from the backend's timing of one kernel.
import { toIoArray } from './dtypes.js';
import { check, fail } from './errors.js';
import { numel } from './inputs.js';
import { randomFloat32, randomIntegers } from './random.js';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function tensorInfo(t) {
  return Object.freeze({ name: t.name, shape: Object.freeze([...t.shape]), dtype: t.dtype });
}

// Seeded random inputs for `specs` ({name, shape, dtype}): input i is NDArray::random(shape,
// dtype, seed + i), as `tensorir run --input-seed` draws for a saved model with the same
// inputs: float32 in [-1, 1), integers -1 or 0 (an index valid on every axis: -1 is the
// last), bools false or true.
export function randomInputsFor(specs, seed) {
  const inputs = {};
  for (const [i, t] of specs.entries()) {
    const dtype = t.dtype || 'float32';
    const s = typeof seed === 'bigint' ? seed + BigInt(i) : seed + i;
    if (dtype === 'float32') {
      inputs[t.name] = randomFloat32(numel(t.shape), s);
      continue;
    }
    const ints = randomIntegers(numel(t.shape), s, dtype === 'bool' ? 0 : -1, dtype === 'bool' ? 2 : 1);
    inputs[t.name] = toIoArray(ints, dtype, `input "${t.name}"`);
  }
  return inputs;
}

export class ModelBase {
  constructor(json) {
    this.json = json;
    this.name = json.name || 'model';
    this.inputs = Object.freeze(json.inputs.map(tensorInfo));
    this.outputs = Object.freeze(json.outputs.map(tensorInfo));
    this.disposed = false;
    this.choice = null;  // for a build load() chose from several: {backend, reason}
  }

  checkUsable() {
    if (this.disposed) fail(`model ${this.name} was disposed; load it again`);
  }

  async run(inputs) {
    return this.runSync(inputs);
  }

  randomInputs(seed = 0) {
    return randomInputsFor(this.inputs, seed);
  }

  // Per-kernel times in ms, the median over `repeats` rounds. `round(time)` runs every
  // kernel once, calling time(i, fn) to run kernel i inside the measurement; `passes(k)`
  // counts a kernel's passes.
  profileKernels(repeats, round, passes) {
    check(Number.isSafeInteger(repeats) && repeats >= 1, 'profile() repeats must be >= 1');
    const times = this.kernels.map(() => []);
    for (let r = 0; r < repeats; ++r) {
      round((i, fn) => {
        const t0 = performance.now();
        fn();
        times[i].push(performance.now() - t0);
      });
    }
    return this.kernels.map((k, i) => ({
      name: k.name, node: k.node, op: k.op, fused: [...k.fused], passes: passes(k), ms: median(times[i]),
    }));
  }
}
