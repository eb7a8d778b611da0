// What a tensorir WebAssembly module imports from "env" besides its memory: the runtime
// functions its kernels call and the C math functions LLVM lowers to calls. The list
// matches the linker's (backends/llvm/wasm_link.cpp), which refuses anything else.
import { fail } from './errors.js';
import { readCString } from './wasm_threads.js';

const f32 = Math.fround;
const unary = {
  exp: Math.exp, exp2: (x) => 2 ** x, log: Math.log, log2: Math.log2, log10: Math.log10,
  sin: Math.sin, cos: Math.cos, tan: Math.tan, tanh: Math.tanh,
};
const unaryC = {
  // C rounds halves away from zero; Math.round rounds them up.
  round: (x) => (x < 0 ? -Math.round(-x) : Math.round(x)),
};
const binary = { pow: Math.pow, fmod: (x, y) => x % y };

// Stack-like scratch memory for the kernels' heap buffers (aligned_alloc/free): kernels
// free in reverse order of allocation, so the top moves back as soon as its block is freed.
// A worker thread's scratch has a fixed `limit`; the calling thread's grows the memory.
export class Scratch {
  constructor(memory, start, limit = Infinity) {
    this.memory = memory;
    this.start = start;
    this.limit = limit;
    this.top = start;
    this.blocks = [];  // [{ptr, end, freed}]
  }

  alloc(align, size) {
    const a = Math.max(Number(align), 16);
    const ptr = Math.ceil(this.top / a) * a;
    const end = ptr + Math.max(Number(size), 1);
    if (end > this.limit) return 0;  // the kernel reports the failed allocation
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      try {
        this.memory.grow(Math.ceil((end - have) / 65536));
      } catch (e) {
        return 0;  // the kernel reports the failed allocation
      }
    }
    this.blocks.push({ ptr, end, freed: false });
    this.top = end;
    return ptr;
  }

  // Everything released: before each kernel, so that a trapped one leaks nothing.
  reset() {
    this.top = this.start;
    this.blocks = [];
  }

  free(ptr) {
    const b = this.blocks.find((x) => x.ptr === ptr && !x.freed);
    if (!b) return;
    b.freed = true;
    while (this.blocks.length && this.blocks[this.blocks.length - 1].freed) this.blocks.pop();
    this.top = this.blocks.length ? this.blocks[this.blocks.length - 1].end : this.start;
  }
}

// `state` is filled in after instantiation: {instance, scratch, error, pool, onError,
// threadError}; with a pool
// (wasm_threads.js) parallel loops run on every thread, else in order on this one.
export function makeImports(memory, state) {
  const env = { memory };
  for (const [name, fn] of Object.entries(unary)) {
    env[name] = fn;
    env[`${name}f`] = (x) => f32(fn(x));
  }
  for (const [name, fn] of Object.entries(unaryC)) {
    env[name] = fn;
    env[`${name}f`] = (x) => f32(fn(x));
  }
  for (const [name, fn] of Object.entries(binary)) {
    env[name] = fn;
    env[`${name}f`] = (x, y) => f32(fn(x, y));
  }
  // A float product is exact in a double, so fmaf rounds once more than C's at most.
  env.fma = (x, y, z) => x * y + z;
  env.fmaf = (x, y, z) => f32(x * y + z);
  env.aligned_alloc = (align, size) => state.scratch.alloc(align, size);
  env.free = (ptr) => state.scratch.free(ptr >>> 0);
  env.tensorir_parallel_for = (begin, end, closure, envPtr) => {
    const body = state.instance.exports.__indirect_function_table.get(closure);
    const pool = state.pool;
    if (pool && !state.inParallel && end - begin > 1n && pool.fits(Number(begin), Number(end))) {
      state.inParallel = true;  // a loop nested in a parallel body runs in order
      try {
        const rc = pool.parallelFor(Number(begin), Number(end), body, closure, envPtr);
        if (rc !== 0 && pool.error) state.error = pool.error;
        return rc;
      } catch (e) {
        if (pool.dead) {  // a worker stopped answering: one thread from now on
          state.pool = null;
          state.threadError = e.message;
        }
        throw e;
      } finally {
        state.inParallel = false;
      }
    }
    for (let i = begin; i < end; ++i) {
      const rc = body(i, envPtr);
      if (rc !== 0) return rc;
    }
    return 0;
  };
  env.tensorir_set_last_error = (ptr) => {
    state.error = readCString(memory, ptr >>> 0);
    if (state.onError) state.onError(ptr >>> 0);
  };
  return { env };
}

// The imports a module asks for that makeImports does not give, as a message, or ''.
export function missingImports(module) {
  const given = makeImports(null, {}).env;
  const missing = WebAssembly.Module.imports(module)
    .filter((i) => i.module !== 'env' || !(i.name in given))
    .map((i) => `${i.module}.${i.name}`);
  return missing.length ? missing.join(', ') : '';
}

export function checkImports(module, url) {
  const missing = missingImports(module);
  if (missing) fail(`${url} imports ${missing}, which this runtime does not provide; export the model ` +
                    'again with the tensorir that ships this runtime');
}
