// Worker threads for a WebAssembly model: each worker runs its own instance of
// model.threads.wasm over the one shared memory, with a stack and scratch memory of its
// own. A parallel loop hands out its iterations through a control block in that memory:
// the calling thread opens the loop and bumps a generation word the workers wait on, a
// worker that wakes while the loop is open joins it, everyone takes iterations with an
// atomic counter, and the caller closes the loop and spins until the workers that joined
// are done (a page's main thread may not block on Atomics.wait). A worker that wakes late,
// or never, costs no waiting: the caller runs what nobody else took.

// Control block words (Int32), then the text of a worker's trap (NUL-terminated).
export const GEN = 0, NEXT = 1, END = 2, CLOSURE = 3, ENV = 4, JOINED = 5, STATUS = 6, STOP = 7;
// JOINED: OPEN while workers may join the loop, plus how many have joined and not finished.
export const OPEN = 0x10000, WORKERS_MASK = 0xffff;
export const ERROR_PTR = 8;  // the C string a worker's kernel code reported, or 0
export const COUNT = 9;      // iterations run by workers, for tests and info()
export const TRAP_TEXT = 64, TRAP_TEXT_BYTES = 256;
export const CONTROL_BYTES = TRAP_TEXT + TRAP_TEXT_BYTES;
// The status of a loop in which a worker's iteration trapped.
export const TRAPPED = -1000;
const WORKER_TIMEOUT_MS = 120000;
export const WORKER_SCRATCH_MIB = 32;  // a worker's aligned_alloc memory (the caller's grows)
const STACK_BYTES = 8 << 20;           // a worker's stack, as the module's own (wasm_link.cpp)

// The pool's part of a memory, from `at` on: the control block, then per worker a stack
// (given by its top) and scratch memory ([start, end]); `end` is where it stops. Pages of
// a worker's scratch that are never touched cost address space only.
export function workerRegions(at, workers, align) {
  const up = (x) => Math.ceil(x / align) * align;
  const control = up(at);
  let end = control + CONTROL_BYTES;
  const stacks = [], scratch = [];
  for (let w = 0; w < workers; ++w) {
    end = up(end + STACK_BYTES);
    stacks.push(end);
    scratch.push([end, end + (WORKER_SCRATCH_MIB << 20)]);
    end = up(end + (WORKER_SCRATCH_MIB << 20));
  }
  return { control, stacks, scratch, end };
}

// The NUL-terminated string at `ptr` (copied out: TextDecoder refuses shared memory).
export function readCString(memory, ptr, limit = Infinity) {
  const bytes = new Uint8Array(memory.buffer, ptr, Math.min(limit, memory.buffer.byteLength - ptr));
  const len = bytes.indexOf(0);
  return new TextDecoder().decode(bytes.slice(0, len < 0 ? bytes.length : len));
}

export class ThreadPool {
  // `layout`: {control, stacks: [top per worker], scratch: [[start, end] per worker]}.
  static async create(module, memory, layout, workerUrl) {
    const pool = new ThreadPool(memory, layout.control);
    try {
      await Promise.all(layout.stacks.map((stackTop, i) => pool.spawn(module, memory, {
        control: layout.control, stackTop, scratch: layout.scratch[i],
      }, workerUrl)));
    } catch (e) {
      pool.dispose();
      throw e;
    }
    return pool;
  }

  constructor(memory, control) {
    this.memory = memory;
    this.control = control;
    this.ctrl = new Int32Array(memory.buffer, control, CONTROL_BYTES / 4);
    this.workers = [];
    this.dead = false;  // a worker stopped answering: the pool is disposed
  }

  spawn(module, memory, setup, workerUrl) {
    return new Promise((resolve, reject) => {
      const w = new Worker(workerUrl, { type: 'module' });
      this.workers.push(w);
      w.onmessage = (ev) => {
        if (ev.data && ev.data.ready) resolve();
        else if (ev.data && ev.data.error) reject(new Error(ev.data.error));
      };
      w.onerror = (ev) => reject(new Error(`a worker thread failed to start: ${ev.message || 'unknown error'}`));
      w.postMessage({ module, memory, ...setup });
    });
  }

  get size() {
    return this.workers.length + 1;
  }

  // Whether parallelFor can take [begin, end): the control words are Int32, and every
  // thread takes one index past the end.
  fits(begin, end) {
    return begin >= 0 && end < 2 ** 31 - 1024;
  }

  // Runs body(i, env) for i in [begin, end) on every thread; returns the first non-zero
  // status, or 0, with what a worker reported in `this.error` (TRAPPED: it trapped).
  // A trap on this thread is rethrown once the workers have stopped.
  parallelFor(begin, end, body, closure, env) {
    const c = this.ctrl;
    this.error = '';
    Atomics.store(c, ERROR_PTR, 0);
    Atomics.store(c, NEXT, begin);
    Atomics.store(c, END, end);
    Atomics.store(c, CLOSURE, closure);
    Atomics.store(c, ENV, env);
    Atomics.store(c, STATUS, 0);
    Atomics.store(c, JOINED, OPEN);  // no worker is in a loop: the last one's were waited for
    Atomics.add(c, GEN, 1);
    Atomics.notify(c, GEN);
    let status = 0;
    try {
      for (let i; (i = Atomics.add(c, NEXT, 1)) < end;) {
        const rc = body(BigInt(i), env);
        if (rc !== 0) {
          status = rc;
          Atomics.store(c, NEXT, end);  // the others stop taking iterations
          break;
        }
      }
    } catch (e) {
      Atomics.store(c, NEXT, end);
      throw e;
    } finally {
      // No worker joins from now on; those that did finish their last iterations. One that
      // never does has died (a worker killed by the browser): fail rather than spin forever.
      Atomics.and(c, JOINED, ~OPEN);
      const start = Date.now();
      for (let spins = 0; (Atomics.load(c, JOINED) & WORKERS_MASK) !== 0; ++spins) {
        if ((spins & 0xfffff) === 0 && Date.now() - start > WORKER_TIMEOUT_MS) {
          this.dispose();
          this.dead = true;
          throw new Error(`a worker thread did not finish a parallel loop within ${WORKER_TIMEOUT_MS / 1000} s; ` +
                          'the model runs on one thread from now on');
        }
      }
    }
    if (status) return status;
    status = Atomics.load(c, STATUS);
    if (status === TRAPPED) {
      this.error = `it trapped in a worker thread: ${readCString(this.memory, this.control + TRAP_TEXT, TRAP_TEXT_BYTES)}`;
    } else if (status !== 0) {
      const ptr = Atomics.load(c, ERROR_PTR) >>> 0;
      const text = ptr ? readCString(this.memory, ptr) : '';
      const hint = /out of memory/.test(text)
        ? ` (a worker has ${WORKER_SCRATCH_MIB} MiB of scratch memory; {threads: 1} has no such limit)` : '';
      this.error = text ? `in a worker thread: ${text}${hint}` : '';
    }
    return status;
  }

  get workerIterations() {
    return this.dead ? 0 : Atomics.load(this.ctrl, COUNT);
  }

  dispose() {
    if (this.ctrl && !this.dead) {
      Atomics.store(this.ctrl, STOP, 1);
      Atomics.add(this.ctrl, GEN, 1);
      Atomics.notify(this.ctrl, GEN);
    }
    for (const w of this.workers) w.terminate();
    this.workers = [];
  }
}
