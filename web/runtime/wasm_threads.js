// Worker threads for a WebAssembly model: each worker runs its own instance of
// model.threads.wasm over the one shared memory, with a stack and scratch memory of its
// own. A parallel loop hands out its iterations through a control block in that memory:
// the calling thread bumps a generation word the workers wait on, everyone takes
// iterations with an atomic counter, and the caller spins until every worker is done
// (a page's main thread may not block on Atomics.wait).

// Control block words (Int32).
export const GEN = 0, NEXT = 1, END = 2, CLOSURE = 3, ENV = 4, PENDING = 5, STATUS = 6, STOP = 7;
export const CONTROL_BYTES = 64;
// A worker's iteration that trapped (its message is posted to the main thread).
export const TRAPPED = -1000;
const WORKER_TIMEOUT_MS = 120000;

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
    this.ctrl = new Int32Array(memory.buffer, control, CONTROL_BYTES / 4);
    this.workers = [];
    this.messages = [];
  }

  spawn(module, memory, setup, workerUrl) {
    return new Promise((resolve, reject) => {
      const w = new Worker(workerUrl, { type: 'module' });
      this.workers.push(w);
      w.onmessage = (ev) => {
        if (ev.data && ev.data.ready) resolve();
        else if (ev.data && ev.data.error) {
          this.messages.push(ev.data.error);
          reject(new Error(ev.data.error));
        }
      };
      w.onerror = (ev) => reject(new Error(`a worker thread failed to start: ${ev.message || 'unknown error'}`));
      w.postMessage({ module, memory, ...setup });
    });
  }

  get size() {
    return this.workers.length + 1;
  }

  // Runs body(i, env) for i in [begin, end) on every thread; returns the first non-zero
  // status (TRAPPED when a worker's iteration trapped), or 0.
  parallelFor(begin, end, body, closure, env) {
    const c = this.ctrl;
    Atomics.store(c, NEXT, begin);
    Atomics.store(c, END, end);
    Atomics.store(c, CLOSURE, closure);
    Atomics.store(c, ENV, env);
    Atomics.store(c, STATUS, 0);
    Atomics.store(c, PENDING, this.workers.length);
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
    } finally {
      // The workers finish their last iterations. One that never does has died (a worker
      // killed by the browser): fail rather than spin forever.
      const start = Date.now();
      for (let spins = 0; Atomics.load(c, PENDING) !== 0; ++spins) {
        if ((spins & 0xfffff) === 0 && Date.now() - start > WORKER_TIMEOUT_MS) {
          throw new Error(`a worker thread did not finish a parallel loop within ${WORKER_TIMEOUT_MS / 1000} s`);
        }
      }
    }
    return status || Atomics.load(c, STATUS);
  }

  dispose() {
    if (this.ctrl) {
      Atomics.store(this.ctrl, STOP, 1);
      Atomics.add(this.ctrl, GEN, 1);
      Atomics.notify(this.ctrl, GEN);
    }
    for (const w of this.workers) w.terminate();
    this.workers = [];
  }
}
