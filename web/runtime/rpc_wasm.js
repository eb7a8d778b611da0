// A "wasm" module sent over RPC (Module::save(path, "wasm"), or "wasm-threads" to run its
// parallel loops on worker threads too): one instance over a memory of its own. A call
// copies its buffers in after the module's data, writes the argument words of
// runtime/module.h (a buffer's address or a scalar as int64 or double, then the symbols as
// int64), calls the function and copies every buffer back out.
import { check, fail } from './errors.js';
import { Scratch, checkInstanceExports, makeImports, missingExports, missingImports } from './wasm_imports.js';
import { callKernel } from './wasm_model.js';
import { ThreadPool, workerRegions } from './wasm_threads.js';

const PAGE = 65536;
const ALIGN = 64;  // every buffer, as the exporter aligns a package's tensors
const SCRATCH_RESERVE = 1 << 20;
const INITIAL = 16 << 20;
const SHARED_MAX = 2 ** 31;  // kWasmSharedMaxMemory of backends/llvm/wasm_link.h
const up = (x, a = ALIGN) => Math.ceil(x / a) * a;

// The symbols' values from the buffers' shapes: dimension = coeff * symbol + offset, the
// first buffer that mentions a symbol binding it.
function symbolValues(sig, args) {
  const values = sig.symbols.map(() => null);
  sig.args.forEach((spec, i) => {
    if (spec.kind !== 'buffer') return;
    spec.shape.forEach((d, k) => {
      if (d.symbol < 0 || d.coeff === 0 || values[d.symbol] !== null) return;
      const v = (args[i].shape[k] - d.offset) / d.coeff;
      check(Number.isSafeInteger(v) && v >= 0,
            () => `${sig.name}: argument ${spec.name}: dimension ${k} is ${args[i].shape[k]}, which no ` +
                  `${sig.symbols[d.symbol]} >= 0 gives`);
      values[d.symbol] = v;
    });
  });
  values.forEach((v, s) => check(v !== null, () => `${sig.name}: the symbol ${sig.symbols[s]} is the size of no ` +
                                                   'buffer argument, so a call cannot determine it'));
  return values;
}

export class RpcWasmModule {
  // `bytes` the module, `signatures` its functions' (docs/rpc.md), `what` names it in errors.
  // With `threads` > 1, `bytes` is a module linked over shared memory
  // (Module::save(path, "wasm-threads")) and its parallel loops run on threads - 1 workers
  // as well, as a model's do.
  static async create(bytes, signatures, what, threads = 1) {
    const threaded = threads > 1;
    let module;
    try {
      module = await WebAssembly.compile(bytes);
    } catch (e) {
      fail(`${what} is not a WebAssembly module this browser compiles: ${e.message}`);
    }
    const exported = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
    const missing = signatures.map((s) => s.name).filter((n) => !exported.has(n));
    check(!missing.length, () => `${what} has no function ${missing.join(', ')}; it exports ` +
                                 `${[...exported].join(', ')}`);
    const imports = missingImports(module), exports = missingExports(module, [], threaded);
    check(!imports, () => `${what} imports ${imports}, which the page does not provide; build it with the tensorir ` +
                          'that serves this page');
    check(!exports, () => `${what} has ${exports}; send a module saved with Module::save(path, ` +
                          `"${threaded ? 'wasm-threads' : 'wasm'}")`);
    let memory;
    try {
      memory = threaded
        ? new WebAssembly.Memory({ initial: INITIAL / PAGE, maximum: SHARED_MAX / PAGE, shared: true })
        : new WebAssembly.Memory({ initial: INITIAL / PAGE });
    } catch (e) {
      fail(`${what}: its WebAssembly ${threaded ? 'shared ' : ''}memory cannot be allocated: ${e.message}`);
    }
    const state = { instance: null, scratch: null, error: '', pool: null, threadError: null };
    let instance;
    try {
      instance = await WebAssembly.instantiate(module, makeImports(memory, state));
    } catch (e) {
      fail(`${what}: instantiating it failed: ${e.message}`);
    }
    checkInstanceExports(instance, what, threaded);
    state.instance = instance;
    const m = new RpcWasmModule(instance, memory, state, signatures, threads - 1);
    if (threaded) {
      try {
        state.pool = await ThreadPool.create(module, memory, m.layout, new URL('./wasm_worker.js', import.meta.url));
      } catch (e) {
        fail(`${what}: starting ${threads - 1} worker threads failed: ${e.message}`);
      }
    }
    return m;
  }

  constructor(instance, memory, state, signatures, workers) {
    this.device = 'wasm';
    this.instance = instance;
    this.memory = memory;
    this.state = state;
    this.signatures = signatures;
    // The workers' control block, stacks and scratch, then the arguments of each call.
    this.layout = workerRegions(instance.exports.__heap_base.value, workers, ALIGN);
    this.base = up(this.layout.end);
    // The workers' stacks and scratch exist before they start.
    this.reserve(this.base + SCRATCH_RESERVE,
                 workers ? `${workers} worker threads' stacks and scratch memory` : "the module's data");
  }

  get threads() {
    return this.state.pool ? this.state.pool.size : 1;
  }

  // What a call and a timing need: run() once per call; finish() copies the results out.
  // `args` are checked (rpc.js): {buffer: ArrayBuffer, shape, dtype, bytes} or {int} / {float}.
  prepare(sig, args) {
    const offsets = [];
    let at = this.base;
    for (const a of args) {
      offsets.push(a.buffer ? at : 0);
      if (a.buffer) at = up(at + a.bytes);
    }
    const symbols = symbolValues(sig, args);
    const slots = at;
    const scratch = up(slots + 8 * (args.length + symbols.length));
    this.reserve(scratch + SCRATCH_RESERVE);
    const heap = this.memory.buffer;
    args.forEach((a, i) => {
      if (a.buffer) new Uint8Array(heap, offsets[i], a.bytes).set(new Uint8Array(a.buffer, 0, a.bytes));
    });
    const words = new DataView(heap, slots, 8 * (args.length + symbols.length));
    args.forEach((a, i) => {
      if (a.buffer) words.setBigInt64(8 * i, BigInt(offsets[i]), true);
      else if (sig.args[i].dtype.startsWith('float')) words.setFloat64(8 * i, a.float ?? a.int, true);
      else words.setBigInt64(8 * i, BigInt(a.int ?? a.float), true);
    });
    symbols.forEach((v, s) => words.setBigInt64(8 * (args.length + s), BigInt(v), true));
    this.state.scratch = new Scratch(this.memory, scratch);
    const kernel = { name: sig.name, fn: this.instance.exports[sig.name], args: slots };
    return {
      run: () => callKernel(this.state, kernel),
      drain: () => {},  // a call returns when it is done
      finish: () => args.forEach((a, i) => {
        if (a.buffer) new Uint8Array(a.buffer, 0, a.bytes).set(new Uint8Array(this.memory.buffer, offsets[i], a.bytes));
      }),
    };
  }

  reserve(bytes, what = 'the arguments') {
    const have = this.memory.buffer.byteLength;
    if (bytes <= have) return;
    try {
      this.memory.grow(Math.ceil((bytes - have) / PAGE));
    } catch (e) {
      fail(`${what} need ${Math.ceil(bytes / (1 << 20))} MiB of WebAssembly memory, which cannot be ` +
           `allocated: ${e.message}`);
    }
  }

  dispose() {
    if (this.state.pool) this.state.pool.dispose();
    this.state.pool = null;
    this.instance = null;
    this.memory = null;
  }
}
