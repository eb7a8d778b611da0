// What a tensorir WebAssembly module imports from "env" besides its memory: the runtime
// functions its kernels call and the C math functions LLVM lowers to calls. The list
// matches the linker's (backends/llvm/wasm_link.cpp), which refuses anything else.
import { fail } from './errors.js';
import { readCString } from './wasm_threads.js';

const f32 = Math.fround;

// Math has no erf: its Taylor series where that converges to double precision quickly
// (|x| < 2.5), beyond it 1 - erfc by the Chebyshev fit of Numerical Recipes (relative
// error below 1.2e-7 of erfc, itself below 4.1e-4 there).
function erf(x) {
  const a = Math.abs(x);
  if (a < 2.5) {
    let term = x, sum = x;
    for (let n = 1; Math.abs(term) > 1e-17 * Math.abs(sum); ++n) {
      term *= (-x * x) / n;
      sum += term / (2 * n + 1);
    }
    return sum * 1.1283791670955126;  // 2 / sqrt(pi)
  }
  const t = 1 / (1 + 0.5 * a);
  const c = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
             -0.82215223, 0.17087277];
  let p = 0;
  for (let i = c.length - 1; i > 0; --i) p = t * (c[i] + p);
  const erfc = t * Math.exp(-a * a + c[0] + p);
  return x < 0 ? erfc - 1 : 1 - erfc;
}

const unary = {
  exp: Math.exp, exp2: (x) => 2 ** x, log: Math.log, log2: Math.log2, log10: Math.log10,
  sin: Math.sin, cos: Math.cos, tan: Math.tan, tanh: Math.tanh, erf,
  asin: Math.asin, acos: Math.acos, atan: Math.atan, sinh: Math.sinh, cosh: Math.cosh,
  asinh: Math.asinh, acosh: Math.acosh, atanh: Math.atanh,
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

// The exports the runtime uses, each with its kind: the kernels model.json names, the
// table of functions a parallel loop's body is called through, the end of the module's own
// data (__heap_base, after which the runtime lays out the model's memory) and, in the
// threaded module, the stack pointer each worker sets to a stack of its own.
export function requiredExports(kernelNames, threaded) {
  const need = [['__heap_base', 'global', 'global __heap_base'],
                ['__indirect_function_table', 'table', 'table __indirect_function_table']];
  if (threaded) need.push(['__stack_pointer', 'global', 'global __stack_pointer']);
  for (const name of kernelNames) need.push([name, 'function', `kernel ${name}`]);
  return need;
}

// The exports of `module` that requiredExports() lists but it lacks or has of another kind,
// as a message, or ''.
export function missingExports(module, kernelNames, threaded) {
  const have = new Map(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
  const problems = [];
  for (const [name, kind, what] of requiredExports(kernelNames, threaded)) {
    if (!have.has(name)) problems.push(`no ${what}`);
    else if (have.get(name) !== kind) problems.push(`${name} as a ${have.get(name)} where a ${kind} is needed`);
  }
  return problems.join(', ');
}

export function checkExports(module, url, kernelNames, threaded) {
  const missing = missingExports(module, kernelNames, threaded);
  if (missing) fail(`${url} has ${missing}; the package's files come from different exports or were edited: ` +
                    'export the model again with the tensorir that ships this runtime');
}

// What checkExports() cannot see before instantiation: __heap_base an address (an i32)
// and, in the threaded module, __stack_pointer one that a worker can set.
export function checkInstanceExports(instance, url, threaded) {
  const again = 'export the model again with the tensorir that ships this runtime';
  const address = (name) => {
    let v;
    try {
      v = instance.exports[name].value;
    } catch (e) {
      v = e.message;  // a type JavaScript cannot read (v128)
    }
    if (!Number.isSafeInteger(v) || v < 0) {
      fail(`${url} exports ${name} as ${typeof v === 'bigint' ? 'a 64-bit integer' : `${JSON.stringify(v)}`}, ` +
           `not a 32-bit address; ${again}`);
    }
    return v;
  };
  address('__heap_base');
  if (threaded) {
    const sp = instance.exports.__stack_pointer;
    const top = address('__stack_pointer');
    try {
      sp.value = top;  // this thread's own stack pointer, unchanged
    } catch (e) {
      fail(`${url} exports __stack_pointer as a global that cannot be set (${e.message}); ${again}`);
    }
  }
}
