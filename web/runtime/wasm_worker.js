// A worker thread of a WebAssembly model (see wasm_threads.js): instantiates the threaded
// module over the shared memory, takes its own stack, then runs iterations of parallel
// loops until the pool stops.
import { CLOSURE, CONTROL_BYTES, END, ENV, GEN, NEXT, PENDING, STATUS, STOP, TRAPPED } from './wasm_threads.js';
import { Scratch, makeImports } from './wasm_imports.js';

const SPINS = 20000;  // some 100 microseconds

// `seen` is the generation before this worker said it was ready: the first loop may start
// any time after that.
function serve(instance, memory, control, seen) {
  const c = new Int32Array(memory.buffer, control, CONTROL_BYTES / 4);
  const table = instance.exports.__indirect_function_table;
  for (;;) {
    // Parallel loops of one run follow each other within microseconds: spin a while before
    // sleeping, since waking from Atomics.wait costs more than a short loop takes.
    for (let spins = 0; spins < SPINS && Atomics.load(c, GEN) === seen; ++spins) {
      // nothing: the generation word changes when the next loop starts
    }
    Atomics.wait(c, GEN, seen);
    seen = Atomics.load(c, GEN);
    if (Atomics.load(c, STOP)) return;
    const end = Atomics.load(c, END);
    const env = Atomics.load(c, ENV);
    const body = table.get(Atomics.load(c, CLOSURE));
    try {
      for (let i; (i = Atomics.add(c, NEXT, 1)) < end;) {
        const rc = body(BigInt(i), env);
        if (rc !== 0) {
          Atomics.compareExchange(c, STATUS, 0, rc);
          Atomics.store(c, NEXT, end);
        }
      }
    } catch (e) {
      Atomics.compareExchange(c, STATUS, 0, TRAPPED);
      Atomics.store(c, NEXT, end);
      postMessage({ trapped: String(e && e.message ? e.message : e) });
    }
    Atomics.sub(c, PENDING, 1);
  }
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
    serve(instance, memory, control, seen);
  } catch (e) {
    postMessage({ error: `a worker thread could not start the model: ${e && e.message ? e.message : e}` });
  }
};
