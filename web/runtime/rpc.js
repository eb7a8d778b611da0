// The remote side of tensorir's RPC (docs/rpc.md) on a page: RpcHandler takes one decoded
// frame and gives the frame that answers it, or null, independently of any socket
// (rpc_page.js carries the frames). A session's arrays are host ArrayBuffers on either
// device, "webgl" (uploaded to textures for each call) or "wasm" (copied into the
// module's memory); its modules and models are those load_module and load_model made.
import { Context } from './context.js';
import { TensorirError, check, fail } from './errors.js';
import { numel } from './inputs.js';
import { loadWebPackage, modelInputs, modelOutputs } from './rpc_models.js';
import { PROTOCOL_VERSION, asBytes, errorHeader } from './rpc_protocol.js';
import { RpcWasmModule } from './rpc_wasm.js';
import { RpcWebglModule } from './rpc_webgl.js';
import { WasmModel } from './wasm_model.js';
import { dtypeBytes } from './wasm_validate.js';

export { PROTOCOL_VERSION };

const isCount = (v) => Number.isSafeInteger(v) && v >= 0;
const message = (e) => (e && e.message ? e.message : String(e)).replace(/^tensorir: /, '');

function makeCanvas() {
  if (typeof document !== 'undefined') return document.createElement('canvas');
  return new OffscreenCanvas(1, 1);
}

// The first calls of a WebAssembly function run V8's baseline code, until its optimised
// code, compiled in the background, takes over at a later call (the first call of a
// WebGL job links its shaders). Warming up goes on for WARMUP_MS, and after that until
// two calls in a row are no faster than the best before them, up to WARMUP_CAP_MS.
const WARMUP_MS = 150, WARMUP_CAP_MS = 3000;
async function warmUp(job, now) {
  const start = now();
  let best = Infinity, settled = 0;
  for (;;) {
    const t0 = now();
    await job.run();
    await job.drain();
    const t1 = now();
    settled = t1 - t0 < 0.8 * best ? 0 : settled + 1;
    best = Math.min(best, t1 - t0);
    if ((settled >= 2 && t1 - start >= WARMUP_MS) || t1 - start >= WARMUP_CAP_MS) return;
  }
}

// Runs `run` (then `drain`, which waits for the device) `number` times per repeat and gives
// each repeat's mean in ms; a repeat shorter than minRepeatMs is run again with more calls.
// With `beforeEach` (evicting the caches), it runs before every timed call, each call is
// timed alone so that its cost stays out of the figures, and a repeat is `number` calls
// whatever minRepeatMs says (every call costs an eviction). `now` is the clock in ms
// (another clock makes the warm-up's decisions testable without wall-clock time).
export async function timeRepeats(job, { number, repeat, minRepeatMs, beforeEach = null,
                                         now = () => performance.now() }) {
  check(Number.isSafeInteger(number) && number >= 1 && Number.isSafeInteger(repeat) && repeat >= 1,
        () => `"number" and "repeat" must be whole numbers >= 1, got ${number} and ${repeat}`);
  check(typeof minRepeatMs === 'number' && minRepeatMs >= 0, '"min_repeat_ms" must be a number >= 0');
  await warmUp(job, now);
  const calls = async (n) => {
    if (!beforeEach) {
      const t0 = now();
      for (let i = 0; i < n; ++i) await job.run();
      await job.drain();
      return now() - t0;
    }
    let ms = 0;
    for (let i = 0; i < n; ++i) {
      beforeEach();
      const t0 = now();
      await job.run();
      await job.drain();
      ms += now() - t0;
    }
    return ms;
  };
  const times = [];
  for (let r = 0; r < repeat; ++r) {
    for (let n = number; ; n *= 2) {
      const ms = await calls(n);
      if (ms >= minRepeatMs || beforeEach || n >= 1 << 20) {
        times.push(ms / n);
        break;
      }
    }
  }
  return times;
}

export class RpcHandler {
  // `log(text)` hears what happens (no-reply ops' errors too).
  constructor({ log = () => {} } = {}) {
    this.log = log;
    this.canvas = null;
    this.arrays = new Map();   // handle -> {device, buffer}
    this.modules = new Map();  // handle -> {module, format, signatures}
    this.models = new Map();   // handle -> Model
    this.webglError = null;
    this.evictScratch = null;
    this.evictValue = 0;
  }

  // Cold timing's eviction of `bytes` (a time request's "evict_bytes"): writing that much
  // memory of the page's own, as a model's other kernels do between two calls of one (a
  // page cannot flush cache lines), or null for none. The buffer is kept for later requests.
  evictor(bytes = 0) {
    check(Number.isSafeInteger(bytes) && bytes >= 0 && bytes <= 2 ** 30,
          () => `"evict_bytes" must be a whole number from 0 to 2^30, got ${JSON.stringify(bytes)}`);
    if (!bytes) return null;
    const words = Math.max(1, Math.floor(bytes / 4));
    if (!this.evictScratch || this.evictScratch.length !== words) this.evictScratch = new Int32Array(words);
    const scratch = this.evictScratch;
    return () => scratch.fill(++this.evictValue);
  }

  // The canvas whose WebGL2 context every module shares; a new one when that was lost.
  gpuCanvas() {
    const gl = this.canvas && this.canvas.getContext('webgl2');
    if (!gl || gl.isContextLost()) this.canvas = makeCanvas();
    new Context(this.canvas).dispose();  // WebGL2 and float render targets, or a clear error
    return this.canvas;
  }

  info() {
    const devices = [];
    try {
      const ctx = new Context(this.gpuCanvas());  // the shared context, for its limits
      devices.push({ name: 'webgl', renderer: ctx.renderer, vendor: ctx.vendor,
                     max_texture_size: ctx.maxTextureSize, max_draw_buffers: ctx.maxDrawBuffers });
      ctx.dispose();
      this.webglError = null;
    } catch (e) {
      this.webglError = message(e);
    }
    const isolated = typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated;
    devices.push({ name: 'wasm', threads: WasmModel.defaultThreads(), cross_origin_isolated: isolated });
    const info = { remote: 'page', devices, user_agent: typeof navigator !== 'undefined' ? navigator.userAgent : '' };
    if (this.webglError) info.webgl_error = this.webglError;
    return info;
  }

  // The answer to frame {header, payload}: {header, payload} or null (a frame that has
  // none). Never throws: a failure is an "error" frame.
  async handle(frame) {
    const h = frame.header;
    if (h.type === 'open' || h.type === 'close') {
      const freed = this.reset();
      this.log(`${h.type === 'open' ? 'session opened' : 'session closed'}${freed ? `, ${freed} freed` : ''}`);
      // "closed" comes after the answers to every earlier request (frames are handled one
      // at a time): the proxy hands the page to the next client only then.
      return h.type === 'close' ? { header: { type: 'closed' } } : null;
    }
    if (h.type === 'error') {
      this.log(`error from the proxy: ${h.message}`);
      return null;
    }
    if (h.type !== 'request') {
      return { header: errorHeader(null, `the page does not take frames of type "${h.type}"`) };
    }
    const id = h.id === undefined ? null : h.id;
    const op = OPS[h.op];
    try {
      check(op, () => `unknown op ${JSON.stringify(h.op)}; the page serves ${Object.keys(OPS).join(', ')}`);
      const t0 = performance.now();
      const out = await op.call(this, h, asBytes(frame.payload || new Uint8Array(0)));
      this.log(`${h.op}${h.function ? ` ${h.function}` : ''} (${(performance.now() - t0).toFixed(1)} ms)`);
      if (NO_REPLY.has(h.op)) return null;
      return { header: { type: 'reply', id, ...(out && out.header) }, payload: out && out.payload };
    } catch (e) {
      if (!(e instanceof TensorirError)) console.error(e);  // a bug of the page: its stack
      this.log(`${h.op}: ${message(e)}`);
      if (NO_REPLY.has(h.op)) return null;
      return { header: errorHeader(id, `${h.op}: ${message(e)}`) };
    }
  }

  // Frees everything the session made; returns what, for the log.
  reset() {
    for (const m of this.modules.values()) m.module.dispose();
    for (const m of this.models.values()) m.dispose();
    const what = [[this.arrays.size, 'array'], [this.modules.size, 'module'], [this.models.size, 'model']]
      .filter(([n]) => n).map(([n, w]) => `${n} ${w}${n > 1 ? 's' : ''}`).join(', ');
    this.arrays.clear();
    this.modules.clear();
    this.models.clear();
    return what;
  }

  lookup(map, handle, what) {
    const v = map.get(handle);
    const some = () => {
      const keys = [...map.keys()];
      return ` (the session has ${keys.slice(0, 10).join(', ')}${keys.length > 10 ? `, ... ${keys.length} in all` : ''})`;
    };
    check(v !== undefined, () => `unknown ${what} handle ${JSON.stringify(handle)}${map.size ? some() : ''}`);
    return v;
  }

  fresh(map, handle, what) {
    check(Number.isSafeInteger(handle), () => `the ${what} handle must be an integer, got ${JSON.stringify(handle)}`);
    check(!map.has(handle), () => `${what} handle ${handle} is already in use in this session`);
  }

  // A call's arguments against the function's signature: each array known, on the
  // module's device, of the signature's dtype and rank, and large enough.
  callArgs(entry, h) {
    const sig = entry.signatures.find((s) => s.name === h.function);
    check(sig, () => `module ${h.module} has no function ${JSON.stringify(h.function)}; its functions are ` +
                     entry.signatures.map((s) => s.name).join(', '));
    check(Array.isArray(h.args) && h.args.length === sig.args.length,
          () => `${sig.name} takes ${sig.args.length} arguments, got ${Array.isArray(h.args) ? h.args.length : 'none'}`);
    const args = sig.args.map((spec, i) => {
      const a = h.args[i] || {};
      const what = `${sig.name}: argument ${i} (${spec.name})`;
      if (spec.kind === 'scalar') {
        const v = a.int ?? a.float;
        check(typeof v === 'number' && (spec.dtype.startsWith('float') || Number.isSafeInteger(v)),
              () => `${what} is a ${spec.dtype} scalar; give {"int": N} or {"float": X}`);
        return a;
      }
      const array = this.lookup(this.arrays, a.handle, 'array');
      check(array.device === entry.module.device,
            () => `${what} is array ${a.handle} on "${array.device}", but the module runs on "${entry.module.device}"`);
      check(a.dtype === spec.dtype, () => `${what} is given as ${a.dtype}; the function takes ${spec.dtype}`);
      check(Array.isArray(a.shape) && a.shape.every(isCount) && a.shape.length === spec.shape.length,
            () => `${what} has shape ${JSON.stringify(a.shape)}; the function takes ${spec.shape.length} dimensions`);
      const bytes = numel(a.shape) * dtypeBytes(a.dtype);
      check(bytes <= array.buffer.byteLength,
            () => `${what}: shape [${a.shape}] of ${a.dtype} takes ${bytes} bytes, but array ${a.handle} has ` +
                  `${array.buffer.byteLength}`);
      return { buffer: array.buffer, shape: a.shape, dtype: a.dtype, bytes };
    });
    return { sig, args };
  }
}

// The ops of docs/rpc.md; each takes the header and payload and gives {header, payload}.
const OPS = {
  info() {
    return { header: { info: this.info() } };
  },

  alloc(h) {
    this.fresh(this.arrays, h.handle, 'array');
    check(h.device === 'wasm' || (h.device === 'webgl' && !this.webglError),
          () => `no device ${JSON.stringify(h.device)} here; the page has ` +
                `${this.webglError ? `"wasm" (webgl: ${this.webglError})` : '"webgl" and "wasm"'}`);
    check(isCount(h.nbytes), () => `"nbytes" must be a whole number, got ${JSON.stringify(h.nbytes)}`);
    let buffer;
    try {
      buffer = new ArrayBuffer(h.nbytes);
    } catch (e) {
      fail(`${h.nbytes} bytes cannot be allocated on the page: ${e.message}`);
    }
    this.arrays.set(h.handle, { device: h.device, buffer });
  },

  free(h) {
    check(Array.isArray(h.handles), '"handles" must be a list');
    for (const handle of h.handles) {
      this.lookup(this.arrays, handle, 'array');
      this.arrays.delete(handle);
    }
  },

  write(h, payload) {
    const array = this.lookup(this.arrays, h.handle, 'array');
    check(isCount(h.offset) && h.offset + payload.length <= array.buffer.byteLength,
          () => `${payload.length} bytes at offset ${h.offset} do not fit array ${h.handle} of ` +
                `${array.buffer.byteLength} bytes`);
    new Uint8Array(array.buffer, h.offset, payload.length).set(payload);
  },

  read(h) {
    const array = this.lookup(this.arrays, h.handle, 'array');
    check(isCount(h.offset) && isCount(h.nbytes) && h.offset + h.nbytes <= array.buffer.byteLength,
          () => `bytes [${h.offset}, ${h.offset + h.nbytes}) are not inside array ${h.handle} of ` +
                `${array.buffer.byteLength} bytes`);
    return { payload: new Uint8Array(array.buffer, h.offset, h.nbytes) };
  },

  async load_module(h, payload) {
    this.fresh(this.modules, h.module, 'module');
    const signatures = h.functions;
    check(Array.isArray(signatures) && signatures.every((s) => s && typeof s.name === 'string' &&
                                                                Array.isArray(s.args) && Array.isArray(s.symbols)),
          '"functions" must list the signatures {name, args, symbols} of the module\'s functions');
    const what = `module ${h.module} (${h.format}${h.target ? `, target "${h.target}"` : ''})`;
    let module;
    if (h.format === 'wasm') {
      module = await RpcWasmModule.create(payload, signatures, what);
    } else if (h.format === 'wasm-threads') {
      const threads = WasmModel.defaultThreads();
      check(threads > 1, () => `${what}: this page runs WebAssembly on one thread (it is not cross-origin isolated ` +
                               'or has one core); send the module as "wasm"');
      module = await RpcWasmModule.create(payload, signatures, what, threads);
    } else if (h.format === 'webgl-json') {
      check(!this.webglError, () => `this page has no WebGL2: ${this.webglError}`);
      module = RpcWebglModule.create(new TextDecoder().decode(payload), this.gpuCanvas(), what);
      const missing = signatures.filter((s) => !module.functions.has(s.name)).map((s) => s.name);
      if (missing.length) {
        module.dispose();
        fail(`${what} has no plan for ${missing.join(', ')}`);
      }
    } else {
      fail(`${what}: the page loads modules of format "wasm", "wasm-threads" and "webgl-json", not ${JSON.stringify(h.format)}`);
    }
    this.modules.set(h.module, { module, format: h.format, signatures });
    const threads = module.device === 'wasm' ? { threads: module.threads } : {};
    return { header: { functions: signatures.map((s) => s.name), ...threads } };
  },

  free_module(h) {
    this.lookup(this.modules, h.module, 'module').module.dispose();
    this.modules.delete(h.module);
  },

  call(h) {
    const entry = this.lookup(this.modules, h.module, 'module');
    const { sig, args } = this.callArgs(entry, h);
    const job = entry.module.prepare(sig, args);
    job.run();
    job.finish();
  },

  async time(h) {
    const entry = this.lookup(this.modules, h.module, 'module');
    const { sig, args } = this.callArgs(entry, h);
    const job = entry.module.prepare(sig, args);
    const times_ms = await timeRepeats(job, { number: h.number, repeat: h.repeat, minRepeatMs: h.min_repeat_ms ?? 0,
                                              beforeEach: this.evictor(h.evict_bytes) });
    job.finish();
    return { header: { times_ms } };
  },

  async load_model(h, payload) {
    this.fresh(this.models, h.model, 'model');
    check(h.format === 'web', () => `the page loads models of format "web" (a web package), not ${JSON.stringify(h.format)}`);
    check(Array.isArray(h.files), '"files" must list {name, bytes}');
    const files = new Map();
    let at = 0;
    for (const f of h.files) {
      check(f && typeof f.name === 'string' && isCount(f.bytes) && at + f.bytes <= payload.length,
            () => `"files" entry ${JSON.stringify(f)} does not lie inside the ${payload.length}-byte payload`);
      files.set(f.name, payload.slice(at, at + f.bytes));
      at += f.bytes;
    }
    const needsGpu = !files.has('model.wasm');
    const model = await loadWebPackage(files, needsGpu && !this.webglError ? this.gpuCanvas() : undefined,
                                       `model ${h.model}`);
    this.models.set(h.model, model);
    const io = (list) => list.map((t) => ({ name: t.name, shape: [...t.shape], dtype: t.dtype }));
    return { header: { inputs: io(model.inputs), outputs: io(model.outputs), backend: model.backend } };
  },

  free_model(h) {
    this.lookup(this.models, h.model, 'model').dispose();
    this.models.delete(h.model);
  },

  async run_model(h, payload) {
    const model = this.lookup(this.models, h.model, 'model');
    return modelOutputs(model, await model.run(modelInputs(model, h.inputs, payload)));
  },

  async profile_model(h, payload) {
    const model = this.lookup(this.models, h.model, 'model');
    const kernels = await model.profile(modelInputs(model, h.inputs, payload), h.repeats ?? 1);
    return { header: { kernels: kernels.map((k) => ({ node: k.node, op: k.op, ms: k.ms, name: k.name })) } };
  },

  // Whole-model latency: run() as a page calls it, uploads and readbacks included.
  async time_model(h, payload) {
    const model = this.lookup(this.models, h.model, 'model');
    const inputs = modelInputs(model, h.inputs, payload);
    const job = { run: () => model.run(inputs), drain: () => {} };
    return { header: { times_ms: await timeRepeats(job, { number: h.number, repeat: h.repeat, minRepeatMs: 0,
                                                         beforeEach: this.evictor(h.evict_bytes) }) } };
  },
};

const NO_REPLY = new Set(['free', 'free_module', 'free_model']);
