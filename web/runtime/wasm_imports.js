// What a tensorir WebAssembly module imports from "env" besides its memory: the runtime
// functions its kernels call and the C math functions LLVM lowers to calls. The list
// matches the linker's (backends/llvm/wasm_link.cpp), which refuses anything else.
import { fail } from './errors.js';

const f32 = Math.fround;
const unary = {
  exp: Math.exp, exp2: (x) => 2 ** x, log: Math.log, log2: Math.log2, log10: Math.log10,
  sin: Math.sin, cos: Math.cos, tan: Math.tan, tanh: Math.tanh,
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

  free(ptr) {
    const b = this.blocks.find((x) => x.ptr === ptr && !x.freed);
    if (!b) return;
    b.freed = true;
    while (this.blocks.length && this.blocks[this.blocks.length - 1].freed) this.blocks.pop();
    this.top = this.blocks.length ? this.blocks[this.blocks.length - 1].end : this.start;
  }
}

// `state` is filled in after instantiation: {instance, scratch, error, pool}; with a pool
// (wasm_threads.js) parallel loops run on every thread, else in order on this one.
export function makeImports(memory, state) {
  const env = { memory };
  for (const [name, fn] of Object.entries(unary)) {
    env[name] = fn;
    env[`${name}f`] = (x) => f32(fn(x));
  }
  for (const [name, fn] of Object.entries(binary)) {
    env[name] = fn;
    env[`${name}f`] = (x, y) => f32(fn(x, y));
  }
  env.aligned_alloc = (align, size) => state.scratch.alloc(align, size);
  env.free = (ptr) => state.scratch.free(ptr);
  env.tensorir_parallel_for = (begin, end, closure, envPtr) => {
    const body = state.instance.exports.__indirect_function_table.get(closure);
    if (state.pool && !state.inParallel && end - begin > 1n) {
      state.inParallel = true;  // a loop nested in a parallel body runs in order
      try {
        return state.pool.parallelFor(Number(begin), Number(end), body, closure, envPtr);
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
    const bytes = new Uint8Array(memory.buffer, ptr);
    const len = bytes.indexOf(0);
    state.error = new TextDecoder().decode(bytes.subarray(0, len < 0 ? 0 : len));
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
