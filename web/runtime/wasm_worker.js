// A worker thread of a WebAssembly model (see wasm_threads.js): instantiates the threaded
// module over the shared memory, takes its own stack, then runs iterations of parallel
// loops until the pool stops.
import {
  CLOSURE, CONTROL_BYTES, COUNT, END, ENV, ERROR_PTR, GEN, JOINED, NEXT, OPEN, STATUS, STOP, TRAP_TEXT,
  TRAP_TEXT_BYTES, TRAPPED,
} from './wasm_threads.js';
import { Scratch, makeImports } from './wasm_imports.js';

const SPINS = 20000;  // some 100 microseconds

// `seen` is the generation before this worker said it was ready: the first loop may start
// any time after that.
function serve(instance, memory, control, seen, state) {
  const c = new Int32Array(memory.buffer, control, CONTROL_BYTES / 4);
  const table = instance.exports.__indirect_function_table;
  // What the kernel code reports with tensorir_set_last_error reaches the calling thread.
  state.onError = (ptr) => Atomics.compareExchange(c, ERROR_PTR, 0, ptr);
  for (;;) {
    // Parallel loops of one run follow each other within microseconds: spin a while before
    // sleeping, since waking from Atomics.wait costs more than a short loop takes.
    for (let spins = 0; spins < SPINS && Atomics.load(c, GEN) === seen; ++spins) {
      // nothing: the generation word changes when the next loop starts
    }
    Atomics.wait(c, GEN, seen);
    seen = Atomics.load(c, GEN);
    if (Atomics.load(c, STOP)) return;
    if (!join(c)) continue;  // woken too late: the caller has closed the loop
    // Joined: the caller waits for this worker, so the loop's words stay as they are.
    const end = Atomics.load(c, END);
    let done = 0;
    try {
      state.scratch.reset();  // whatever a trapped loop left allocated
      const env = Atomics.load(c, ENV);
      const body = table.get(Atomics.load(c, CLOSURE));
      for (let i; (i = Atomics.add(c, NEXT, 1)) < end; ++done) {
        const rc = body(BigInt(i), env);
        if (rc !== 0) {
          Atomics.compareExchange(c, STATUS, 0, rc);
          Atomics.store(c, NEXT, end);
        }
      }
    } catch (e) {
      Atomics.store(c, NEXT, end);
      if (Atomics.compareExchange(c, STATUS, 0, TRAPPED) === 0) writeTrap(memory, control, e);
    } finally {
      Atomics.add(c, COUNT, done);
      Atomics.sub(c, JOINED, 1);  // always: the calling thread waits for it
    }
  }
}

// Counts this worker in the open loop, if one is open. Whatever loop that is (the one that
// woke it or a later one), its words were written before it was opened.
function join(c) {
  for (let s = Atomics.load(c, JOINED); s & OPEN; s = Atomics.load(c, JOINED)) {
    if (Atomics.compareExchange(c, JOINED, s, s + 1) === s) return true;
  }
  return false;
}

function writeTrap(memory, control, e) {
  const text = new TextEncoder().encode(String(e && e.message ? e.message : e)).subarray(0, TRAP_TEXT_BYTES - 1);
  const area = new Uint8Array(memory.buffer, control + TRAP_TEXT, TRAP_TEXT_BYTES);
  area.set(text);
  area[text.length] = 0;
}

self.onmessage = async (ev) => {
  const { module, memory, control, stackTop, scratch } = ev.data;
  try {
    const state = { instance: null, scratch: null, error: '' };
    const instance = await WebAssembly.instantiate(module, makeImports(memory, state));
    state.instance = instance;
    state.scratch = new Scratch(memory, scratch[0], scratch[1]);
    instance.exports.__stack_pointer.value = stackTop;
    self.onmessage = null;
    const seen = Atomics.load(new Int32Array(memory.buffer, control, CONTROL_BYTES / 4), GEN);
    postMessage({ ready: true });
    serve(instance, memory, control, seen, state);
  } catch (e) {
    postMessage({ error: `a worker thread could not start the model: ${e && e.message ? e.message : e}` });
  }
};
