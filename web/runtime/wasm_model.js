// A model of a WebAssembly package: one instance of model.wasm over a memory laid out at
// export time (parameters, inputs, results), so run() is copying the inputs in, calling
// the kernels in order and copying the output out.
import { ioArray } from './dtypes.js';
import { TensorirError, check, fail } from './errors.js';
import { checkInputs, numel } from './inputs.js';
import { ModelBase } from './model_base.js';
import { Scratch, checkExports, checkImports, checkInstanceExports, makeImports } from './wasm_imports.js';
import { ThreadPool, TRAPPED, workerRegions } from './wasm_threads.js';

const PAGE = 65536;

// Where everything lies in the memory, after the module's own stack and data: the
// model's region (parameters, inputs, results), the kernels' argument slots, the worker
// pool's control block, stacks and scratch memory, and last the calling thread's
// scratch, which grows.
function planMemory(json, heapBase, workers) {
  const align = json.memory.align;
  const up = (x, a = align) => Math.ceil(x / a) * a;
  const base = up(heapBase);
  const args = base + json.memory.bytes;
  const pool = workerRegions(args + 8 * json.kernels.reduce((n, k) => n + k.args.length, 0), workers, align);
  return { base, args, control: pool.control, stacks: pool.stacks, scratch: pool.scratch, mainScratch: pool.end };
}

function defaultThreads() {
  const isolated = typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated;
  if (!isolated || typeof Worker === 'undefined' || typeof navigator === 'undefined') return 1;
  return Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 8));
}

// Calls kernel {name, fn, args} (args: the address of its argument words) with fresh
// scratch memory; a trap or a non-zero status is a TensorirError with the kernel's message.
export function callKernel(state, kernel) {
  state.scratch.reset();
  state.error = '';
  let rc;
  try {
    rc = kernel.fn(kernel.args);
  } catch (e) {
    fail(`kernel ${kernel.name} trapped: ${e && e.message ? e.message : e}`);
  }
  if (rc !== 0) {
    const msg = state.error || (rc === TRAPPED ? 'it trapped in a worker thread' : `status ${rc}`);
    state.error = '';
    fail(`kernel ${kernel.name} failed: ${msg}`);
  }
}

export class WasmModel extends ModelBase {
  // How many threads load() uses by default: every core (up to 8) in a cross-origin
  // isolated page, else 1.
  static defaultThreads() {
    return defaultThreads();
  }

  // `wasm` (model.wasm, or model.threads.wasm when threads > 1) and `params` are the
  // bytes of the package's files, already checked. With `required` false, workers that
  // cannot start leave the model on one thread (threadError says why) instead of failing.
  static async create(json, wasm, params, url, threads, required = true) {
    let module;
    try {
      module = await WebAssembly.compile(wasm);
    } catch (e) {
      fail(`${url}: this browser cannot compile the model's WebAssembly (${e.message}); it needs ` +
           'WebAssembly SIMD (Chrome 91, Firefox 89, Safari 16.4 or later)');
    }
    checkImports(module, url);
    checkExports(module, url, json.kernels.map((k) => k.name), threads > 1);
    // The module's own stack and data come first (below __heap_base, a few MiB).
    const initial = Math.ceil((json.memory.bytes + (16 << 20)) / PAGE);
    let memory;
    try {
      memory = threads > 1
        ? new WebAssembly.Memory({ initial, maximum: json.threaded_module.max_memory / PAGE, shared: true })
        : new WebAssembly.Memory({ initial });
    } catch (e) {
      const what = threads > 1 ? 'shared memory (for worker threads)' : 'memory';
      const err = new TensorirError(`the model's ${Math.ceil(initial / 16)} MiB of WebAssembly ${what} ` +
                                    `cannot be allocated: ${e.message}`);
      err.sharedMemory = threads > 1;  // load() may try again on one thread
      throw err;
    }
    const state = { instance: null, scratch: null, error: '', pool: null, threadError: null };
    let instance;
    try {
      instance = await WebAssembly.instantiate(module, makeImports(memory, state));
    } catch (e) {
      fail(`${url}: instantiating the model's WebAssembly failed: ${e.message}`);
    }
    checkInstanceExports(instance, url, threads > 1);
    const model = new WasmModel(json, instance, memory, state, params, threads - 1, url);
    if (threads > 1) {
      try {
        state.pool = await ThreadPool.create(module, memory, model.layout,
                                             new URL('./wasm_worker.js', import.meta.url));
      } catch (e) {
        const why = `starting ${threads - 1} worker threads failed: ${e.message}`;
        if (required) fail(why);
        state.threadError = why;
      }
    }
    return model;
  }

  constructor(json, instance, memory, state, params, workers, url = 'model.wasm') {
    super(json);
    this.backend = 'wasm';
    this.memory = memory;
    this.state = state;
    state.instance = instance;
    const exports = instance.exports;
    const layout = planMemory(json, exports.__heap_base.value, workers);
    this.layout = layout;
    this.base = layout.base;
    const need = layout.mainScratch + (1 << 20);
    if (need > memory.buffer.byteLength) {
      try {
        memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
      } catch (e) {
        fail(`the model's ${Math.ceil(need / (1 << 20))} MiB of WebAssembly memory (its module's data ends at ` +
             `${exports.__heap_base.value}) cannot be allocated: ${e.message}`);
      }
    }
    state.scratch = new Scratch(memory, layout.mainScratch);
    new Uint8Array(memory.buffer, this.base, params.byteLength).set(new Uint8Array(params));
    // Each kernel's argument slots (8 bytes each, addresses in the low 32 bits), once.
    let slot = layout.args;
    this.kernels = json.kernels.map((k) => {
      const fn = exports[k.name];
      check(typeof fn === 'function', `${url} has no kernel ${k.name}; the package's files come from ` +
                                      'different exports');
      const words = new BigUint64Array(memory.buffer, slot, k.args.length);
      k.args.forEach((off, i) => { words[i] = BigInt(this.base + off); });
      const kernel = { name: k.name, node: k.node || k.name, op: k.op || '', fused: k.fused || [k.name], fn, args: slot };
      slot += k.args.length * 8;
      return kernel;
    });
  }

  get threads() {
    return this.state.pool ? this.state.pool.size : 1;
  }

  // Why the model runs on fewer threads than it was loaded with (workers that could not
  // start, or stopped answering), or null.
  get threadError() {
    return this.state.threadError;
  }

  setInputs(inputs) {
    const data = checkInputs(this.json.inputs, inputs, this.name);
    this.json.inputs.forEach((t, i) => {
      new (ioArray(t.dtype))(this.memory.buffer, this.base + t.offset, data[i].length).set(data[i]);
    });
  }

  call(kernel) {
    callKernel(this.state, kernel);
  }

  runSync(inputs) {
    this.checkUsable();
    this.setInputs(inputs);
    for (const k of this.kernels) this.call(k);
    const out = {};
    for (const t of this.json.outputs) {
      out[t.name] = new (ioArray(t.dtype))(this.memory.buffer, this.base + t.offset, numel(t.shape)).slice();
    }
    return out;
  }

  // Per-kernel times in ms (median over `repeats` runs). Without inputs, randomInputs(0).
  async profile(inputs, repeats = 1) {
    this.checkUsable();
    this.setInputs(inputs || this.randomInputs(0));
    return this.profileKernels(repeats, (time) => this.kernels.forEach((k, i) => time(i, () => this.call(k))),
                               () => 1);
  }

  info() {
    const j = this.json;
    return {
      name: this.name, target: j.target, backend: 'wasm', threads: this.threads, kernels: j.kernels.length,
      renderer: `WebAssembly SIMD, ${this.threads} thread${this.threads > 1 ? 's' : ''}`, threadError: this.threadError,
      workerIterations: this.state.pool ? this.state.pool.workerIterations : 0,
      memoryBytes: this.memory ? this.memory.buffer.byteLength : 0, paramsBytes: j.params.bytes, moduleBytes: j.module.bytes,
    };
  }

  // The memory goes with the last reference to it.
  dispose() {
    if (this.state.pool) this.state.pool.dispose();
    this.state.pool = null;
    this.disposed = true;
    this.kernels = [];
    this.memory = null;
    this.state.instance = null;
  }
}
