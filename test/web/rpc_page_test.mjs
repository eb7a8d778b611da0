// The RPC page (web/rpc.html) without the real proxy:
// - its frames (web/runtime/rpc_protocol.js) against lib/rpc/protocol.cpp both ways: the
//   frames tensorir_rpc_page_data wrote are read and written again byte for byte, and the
//   program decodes the frames the page writes; malformed messages are refused by both;
// - in headless Chromium, its request handler driven directly: arrays on both devices,
//   kernels built for "wasm" and "webgl" (add, a row sum, a matmul; a symbolic axpy with a
//   scalar on "wasm") against the "llvm" build's outputs, time replies, a small model's
//   web packages, and every error case (unknown handle, function or op, a shader that
//   does not compile, a trap, arrays on the wrong device or too small, writes out of
//   bounds);
// - the page over a WebSocket of this test's own standing in for the proxy: register, a
//   session (open, requests, close), a text message, a malformed frame, and reconnecting.
//
//   node rpc_page_test.mjs DATA_DIR --decoder PATH [--chromium PATH]   (tensorir_rpc_page_data DATA_DIR)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

import { PROTOCOL_VERSION, decodeFrame, encodeFrame } from '../../web/runtime/rpc_protocol.js';
import { timeRepeats } from '../../web/runtime/rpc.js';
import { importPlaywright, launchBrowser } from './browser.mjs';
import { startServer } from './static_server.mjs';
import { accept } from './ws_server.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const chromiumPath = option('--chromium', process.env.CHROMIUM || '/usr/bin/chromium');
const decoder = option('--decoder', null);
const dataDir = args[0];
if (!dataDir || !decoder) {
  console.error('usage: node rpc_page_test.mjs DATA_DIR --decoder PATH [--chromium PATH]');
  process.exit(2);
}
const data = JSON.parse(readFileSync(join(dataDir, 'cases.json'), 'utf8'));
const file = (name) => readFileSync(join(dataDir, name));

let failed = 0;
function report(ok, what, detail = '') {
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failed++;
}
async function section(what, fn) {
  try {
    await fn();
  } catch (e) {
    report(false, what, e.stack || e.message);
  }
}
const hex = (bytes) => Buffer.from(bytes).toString('hex');

// ---- frames against lib/rpc/protocol.cpp ----
await section('frames', async () => {
  for (const f of data.frames) {
    const bytes = file(f.file);
    const got = decodeFrame(bytes);
    report(isDeepStrictEqual(got.header, f.header) && hex(got.payload) === f.payload_hex,
           `frame ${f.file} (C++) read by the page`, JSON.stringify(got.header));
    const again = encodeFrame(f.header, Buffer.from(f.payload_hex, 'hex'));
    report(Buffer.compare(Buffer.from(again), bytes) === 0, `frame ${f.file} written by the page byte for byte`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'tensorir_rpc_frames_'));
  try {
    const cpp = (bytes) => {
      writeFileSync(join(dir, 'frame.bin'), bytes);
      return JSON.parse(execFileSync(decoder, ['--decode', join(dir, 'frame.bin')], { encoding: 'utf8' }));
    };
    const register = { type: 'register', v: PROTOCOL_VERSION, key: 'browser', token: '',
                       info: { devices: [{ name: 'wasm', threads: 4 }], user_agent: 'Ünïcode "ua"' } };
    const sent = [[register, null], [{ type: 'reply', id: 3 }, new Uint8Array(70000).map((_, i) => i * 7)]];
    for (const [header, payload] of sent) {
      const got = cpp(encodeFrame(header, payload));
      report(isDeepStrictEqual(got.header, header) && got.payload_hex === hex(payload || []),
             `a "${header.type}" frame the page writes read by lib/rpc/protocol.cpp`, got.error || '');
    }
    const good = encodeFrame({ type: 'reply', id: 1 });
    const bad = {
      'a short message': good.slice(0, 6),
      'another magic': Uint8Array.from(good, (b, i) => (i === 0 ? 0x58 : b)),
      'a header length past the end': Uint8Array.from(good, (b, i) => (i === 4 ? 0xff : b)),
      'a header without "type"': encodeFrame({ id: 1 }),
      'a header that is not JSON': Uint8Array.from(good, (b, i) => (i === 8 ? 0x5b : b)),
    };
    for (const [what, bytes] of Object.entries(bad)) {
      let page = null;
      try {
        decodeFrame(bytes);
      } catch (e) {
        page = e.message;
      }
      const c = cpp(bytes);
      report(page !== null && page.replace(/^tensorir: /, '') === c.error,
             `${what} is refused by the page and by protocol.cpp, in the same words`, `page: ${page}; C++: ${c.error}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- timing: a function whose first calls are slow (as before V8's optimised code of a
// WebAssembly function takes over) is timed once its calls are fast ----
await section('timing after warm-up', async () => {
  // A clock of the test's own, advanced only by the jobs: the warm-up's decisions are
  // checked exactly, whatever else runs on the machine.
  let clock = 0;
  const now = () => clock;
  const near = (ms, want) => Math.abs(ms - want) < 1e-9;
  // Calls that keep getting faster (each under 0.8 of the one before) past WARMUP_MS
  // (150 ms), then settle at 1 ms: a warm-up of a fixed 150 ms would time 2-3 ms calls.
  const slow = [40, 30, 23, 18, 14, 11, 8.5, 6.5, 5, 3.8, 2.9, 2.2];
  let calls = 0;
  const job = { run: () => { clock += slow[calls++] ?? 1; }, drain: () => {} };
  const times = await timeRepeats(job, { number: 1, repeat: 3, minRepeatMs: 0, now });
  // The 12 slow calls, one of 1 ms (still a gain), two that show none, then the 3 timed.
  report(calls === slow.length + 3 + 3 && times.length === 3 && times.every((ms) => near(ms, 1)),
         'timeRepeats warms a function up until its calls stop getting faster',
         `${calls} calls, times ${times.join(', ')} ms`);
  // Calls that never stop getting faster (x0.75 each) are warmed up for WARMUP_CAP_MS (3 s):
  // 1000 + 750 + 562.5 + 421.9 + 316.4 ms, then one timed call.
  clock = 0;
  calls = 0;
  const drifting = { run: () => { clock += 1000 * 0.75 ** calls++; }, drain: () => {} };
  const drift = await timeRepeats(drifting, { number: 1, repeat: 1, minRepeatMs: 0, now });
  report(calls === 6 && near(drift[0], 1000 * 0.75 ** 5),
         'timeRepeats stops warming up after 3 s of calls that still get faster',
         `${calls} calls, timed ${drift.join(', ')} ms`);
  // Cold timing: the eviction runs before every timed call, outside the clock.
  let evictions = 0;
  clock = 0;
  calls = 0;
  const cold = await timeRepeats({ run: () => { ++calls; clock += 1; }, drain: () => {} },
                                 { number: 2, repeat: 3, minRepeatMs: 0, now,
                                   beforeEach: () => { ++evictions; clock += 20; } });
  report(evictions === 6 && cold.length === 3 && cold.every((ms) => near(ms, 1)),
         'timeRepeats runs beforeEach before each of the 2 x 3 timed calls, outside the clock',
         `${evictions} evictions, times ${cold.join(', ')} ms`);
  // A repeat shorter than min_repeat_ms runs again with twice the calls.
  clock = 0;
  calls = 0;
  const doubled = await timeRepeats({ run: () => { ++calls; clock += 1; }, drain: () => {} },
                                    { number: 1, repeat: 1, minRepeatMs: 5, now });
  // 150 calls of warm-up (1 ms each, settled from the third), then 1, 2, 4 and 8 calls.
  report(doubled.length === 1 && near(doubled[0], 1) && calls === 150 + 1 + 2 + 4 + 8,
         'timeRepeats doubles the calls of a repeat shorter than min_repeat_ms',
         `${calls} calls, times ${doubled.join(', ')} ms`);
});

// ---- the stand-in proxy: WebSocket connections of the page, in order ----
const connections = [];
const connectionWaiters = [];
function upgrade(req, socket) {
  const conn = accept(req, socket);
  conn.path = req.url;
  if (connectionWaiters.length) connectionWaiters.shift()(conn);
  else connections.push(conn);
}
function nextConnection(ms) {
  const p = connections.length ? Promise.resolve(connections.shift()) : new Promise((r) => connectionWaiters.push(r));
  return within(p, ms, 'no WebSocket connection from the page');
}
function within(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} in ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}
async function nextFrame(conn, ms = 10000) {
  const m = await within(conn.next(), ms, 'no message from the page');
  if (m === null) return null;
  if (!m.binary) throw new Error(`the page sent a text message: ${m.data}`);
  return decodeFrame(m.data);
}
async function expectRegister(conn, label) {
  const f = await nextFrame(conn);
  const h = f && f.header;
  report(h && h.type === 'register' && h.v === PROTOCOL_VERSION && h.key === 'test' && h.token === 'T' && conn.path === '/' &&
         Array.isArray(h.info.devices), `${label}: the page registers over ws://host/`, JSON.stringify(h));
  conn.send(encodeFrame({ type: 'registered' }));
  return h ? h.info : null;
}

// ---- the handler, driven through page.evaluate ----
const b64 = (bytes) => Buffer.from(bytes || []).toString('base64');
async function call(page, header, payload) {
  const r = await page.evaluate(async ([h, p]) => {
    const bin = atob(p);
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    const reply = await window.tensorirRpc.handler.handle({ header: h, payload: bytes });
    if (!reply) return null;
    const out = reply.payload ? new Uint8Array(reply.payload.buffer, reply.payload.byteOffset, reply.payload.byteLength)
                              : new Uint8Array(0);
    let s = '';
    for (let i = 0; i < out.length; i += 8192) s += String.fromCharCode(...out.subarray(i, i + 8192));
    return { header: reply.header, payload: btoa(s) };
  }, [header, b64(payload)]);
  return r && { header: r.header, payload: Buffer.from(r.payload, 'base64') };
}
let nextId = 1;
const request = (page, fields, payload) => call(page, { type: 'request', id: nextId++, ...fields }, payload);
async function ok(page, fields, payload) {
  const r = await request(page, fields, payload);
  if (!r || r.header.type !== 'reply') throw new Error(`${fields.op}: ${r ? r.header.message : 'no answer'}`);
  return r;
}
async function expectError(page, what, fields, pattern, payload) {
  const r = await request(page, fields, payload);
  const h = r && r.header;
  report(h && h.type === 'error' && h.id === nextId - 1 && pattern.test(h.message), `error: ${what}`,
         h ? h.message.split('\n').slice(0, 2).join(' | ') : 'no answer');
}
const floats = (buf) => new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
function compare(got, want) {
  let worst = 0, scale = 1;
  for (let i = 0; i < want.length; ++i) {
    worst = Math.max(worst, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return { ok: got.length === want.length && worst <= 1e-5 * scale, text: `max abs err ${worst.toExponential(2)}` };
}

let handle = 100;
// Allocates and fills the case's arrays on `device`; returns the call's args and the output's handle.
async function caseArgs(page, c, device) {
  const callArgs = [];
  let out = null;
  for (const a of c.args) {
    if (a.float !== undefined) {
      callArgs.push({ float: a.float });
      continue;
    }
    const h = handle++;
    const nbytes = a.shape.reduce((x, y) => x * y, 1) * 4;
    await ok(page, { op: 'alloc', handle: h, device, nbytes });
    if (a.input) await ok(page, { op: 'write', handle: h, offset: 0 }, file(a.input));
    else out = { handle: h, nbytes, expected: floats(file(a.expected)) };
    callArgs.push({ handle: h, shape: a.shape, dtype: a.dtype });
  }
  return { callArgs, out };
}

let moduleHandle = 1;
async function runCase(page, c, device) {
  const format = device === 'wasm' ? 'wasm' : 'webgl-json';
  const module = moduleHandle++;
  const loaded = await ok(page, { op: 'load_module', module, format, target: device, functions: [c.signature] },
                          file(c.modules[device]));
  const { callArgs, out } = await caseArgs(page, c, device);
  await ok(page, { op: 'call', module, function: c.name, args: callArgs });
  const got = floats((await ok(page, { op: 'read', handle: out.handle, offset: 0, nbytes: out.nbytes })).payload);
  const r = compare(got, out.expected);
  report(r.ok && isDeepStrictEqual(loaded.header.functions, [c.name]), `${c.name} on ${device} against llvm`, r.text);
  // Timing: one mean per repeat, and the outputs still right afterwards.
  await ok(page, { op: 'write', handle: out.handle, offset: 0 }, new Uint8Array(out.nbytes));
  const t = await ok(page, { op: 'time', module, function: c.name, args: callArgs, number: 3, repeat: 2,
                             min_repeat_ms: 1 });
  const again = compare(floats((await ok(page, { op: 'read', handle: out.handle, offset: 0, nbytes: out.nbytes })).payload),
                        out.expected);
  const times = t.header.times_ms;
  report(Array.isArray(times) && times.length === 2 && times.every((x) => Number.isFinite(x) && x >= 0) && again.ok,
         `time ${c.name} on ${device}`, `${JSON.stringify(times)} ms, then ${again.text}`);
  return { module, callArgs };
}

// A module that traps: memory imported, the exports the runtime wants, boom() = unreachable;
// with `extraImport`, also a function env.<extraImport> that the page does not give.
function trapModule(extraImport = null) {
  const str = (s) => [s.length, ...Buffer.from(s)];
  const section = (id, bytes) => [id, bytes.length, ...bytes];
  const imports = [[...str('env'), ...str('memory'), 0x02, 0x00, 0x01]];
  if (extraImport) imports.push([...str('env'), ...str(extraImport), 0x00, 0]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),
    ...section(2, [imports.length, ...imports.flat()]),
    ...section(3, [1, 0]),
    ...section(4, [1, 0x70, 0x00, 0x00]),
    ...section(6, [1, 0x7f, 0x00, 0x41, 0x80, 0x08, 0x0b]),
    ...section(7, [3, ...str('boom'), 0, imports.length - 1, ...str('__heap_base'), 3, 0,
                   ...str('__indirect_function_table'), 1, 0]),
    ...section(10, [1, 3, 0, 0x00, 0x0b]),
  ]);
}

async function modelTests(page) {
  const m = data.model;
  const input = file(m.input_file), expected = floats(file(m.expected));
  for (const [i, build] of ['webgl', 'wasm'].entries()) {
    const dir = `model-${build}`;
    const names = ['model.json', 'params.bin', ...(build === 'wasm' ? ['model.wasm'] : [])];
    const bytes = names.map((n) => file(join(dir, n)));
    const model = 50 + i;
    const loaded = await ok(page, { op: 'load_model', model, format: 'web',
                                    files: names.map((name, k) => ({ name, bytes: bytes[k].length })) },
                            Buffer.concat(bytes));
    const io = loaded.header;
    report(io.inputs[0].name === m.input && io.outputs[0].name === m.output && io.backend === build,
           `load_model (${build} package)`, JSON.stringify(io));
    const inputs = [{ name: m.input, bytes: input.length }];
    const run = await ok(page, { op: 'run_model', model, inputs }, input);
    const o = run.header.outputs[0];
    const r = compare(floats(run.payload.subarray(0, o.bytes)), expected);
    report(r.ok && o.name === m.output && o.dtype === 'float32', `run_model (${build}) against llvm`, r.text);
    const prof = await ok(page, { op: 'profile_model', model, inputs, repeats: 2 }, input);
    report(prof.header.kernels.length > 0 && prof.header.kernels.every((k) => typeof k.node === 'string' && k.ms >= 0),
           `profile_model (${build})`, JSON.stringify(prof.header.kernels));
    const t = await ok(page, { op: 'time_model', model, inputs, number: 2, repeat: 3 }, input);
    report(t.header.times_ms.length === 3, `time_model (${build})`, `${JSON.stringify(t.header.times_ms)} ms`);
    await expectError(page, `run_model (${build}) with a short input`, { op: 'run_model', model,
                      inputs: [{ name: m.input, bytes: 8 }] }, /has 240 bytes, but the request gives 8/, input.subarray(0, 8));
  }
  await expectError(page, 'load_model without params.bin', { op: 'load_model', model: 60, format: 'web',
                    files: [{ name: 'model.json', bytes: file('model-webgl/model.json').length }] },
                    /names params\.bin, which was not sent/, file('model-webgl/model.json'));
  report(await request(page, { op: 'free_model', model: 50 }) === null, 'free_model has no reply');
  await expectError(page, 'a freed model', { op: 'run_model', model: 50, inputs: [] }, /unknown model handle 50/);
}

async function handlerTests(page) {
  const info = (await ok(page, { op: 'info' })).header.info;
  const webgl = info.devices.find((d) => d.name === 'webgl'), wasm = info.devices.find((d) => d.name === 'wasm');
  report(webgl && typeof webgl.renderer === 'string' && webgl.max_texture_size >= 4096 && webgl.max_draw_buffers >= 4 &&
         wasm && wasm.threads >= 1 && info.remote === 'page', 'info: devices', JSON.stringify(info.devices));

  // Arrays: bytes written in two pieces read back whole and in part, on both devices.
  for (const device of ['wasm', 'webgl']) {
    const h = handle++;
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 37 + 11) & 255);
    await ok(page, { op: 'alloc', handle: h, device, nbytes: 1000 });
    await ok(page, { op: 'write', handle: h, offset: 0 }, bytes.subarray(0, 600));
    await ok(page, { op: 'write', handle: h, offset: 600 }, bytes.subarray(600));
    const whole = (await ok(page, { op: 'read', handle: h, offset: 0, nbytes: 1000 })).payload;
    const part = (await ok(page, { op: 'read', handle: h, offset: 3, nbytes: 7 })).payload;
    report(hex(whole) === hex(bytes) && hex(part) === hex(bytes.subarray(3, 10)), `alloc/write/read on ${device}`);
    await expectError(page, `a write past the end on ${device}`, { op: 'write', handle: h, offset: 999 },
                      /2 bytes at offset 999 do not fit array/, new Uint8Array(2));
    await expectError(page, `a read past the end on ${device}`, { op: 'read', handle: h, offset: 990, nbytes: 20 },
                      /not inside array/);
    report(await request(page, { op: 'free', handles: [h] }) === null, `free on ${device} has no reply`);
    await expectError(page, `a freed array on ${device}`, { op: 'read', handle: h, offset: 0, nbytes: 1 },
                      new RegExp(`unknown array handle ${h}`));
  }
  await expectError(page, 'an unknown device', { op: 'alloc', handle: 1, device: 'cuda', nbytes: 4 }, /no device "cuda"/);

  const modules = {};
  for (const c of data.cases) {
    for (const device of ['wasm', 'webgl']) {
      if (!c.modules[device]) continue;
      await section(`${c.name} on ${device}`, async () => { modules[`${c.name}/${device}`] = await runCase(page, c, device); });
    }
  }

  const add = data.cases.find((c) => c.name === 'add');
  const onWasm = modules['add/wasm'], onWebgl = modules['add/webgl'];
  if (onWasm && onWebgl) {
    await expectError(page, 'an unknown array handle', { op: 'call', module: onWasm.module, function: 'add',
                      args: [{ ...onWasm.callArgs[0], handle: 999 }, ...onWasm.callArgs.slice(1)] },
                      /unknown array handle 999/);
    await expectError(page, 'an unknown function', { op: 'call', module: onWasm.module, function: 'nope', args: [] },
                      /has no function "nope"; its functions are add/);
    await expectError(page, 'an unknown module handle', { op: 'call', module: 77, function: 'add', args: [] },
                      /unknown module handle 77/);
    await expectError(page, 'an array of the other device', { op: 'call', module: onWebgl.module, function: 'add',
                      args: onWasm.callArgs }, /on "wasm", but the module runs on "webgl"/);
    await expectError(page, 'an array too small for its shape', { op: 'call', module: onWasm.module, function: 'add',
                      args: [{ ...onWasm.callArgs[0], shape: [37, 54] }, ...onWasm.callArgs.slice(1)] },
                      /takes 7992 bytes, but array \d+ has 7844/);
    await expectError(page, 'a wrong argument count', { op: 'time', module: onWebgl.module, function: 'add',
                      args: onWebgl.callArgs.slice(1), number: 1, repeat: 1 }, /takes 3 arguments, got 2/);
  }
  const plans = JSON.parse(file(add.modules.webgl).toString('utf8'));
  plans.functions[0].passes[0].source = plans.functions[0].passes[0].source
    .replace(/void main\(\)\s*\{/, 'void main() { this is not glsl;');
  await expectError(page, 'a shader that does not compile', { op: 'load_module', module: 90, format: 'webgl-json',
                    target: 'webgl', functions: [add.signature] },
                    /does not compile: .*(ERROR|error)[\s\S]*this is not glsl/, Buffer.from(JSON.stringify(plans)));
  await expectError(page, 'a module that is not WebAssembly', { op: 'load_module', module: 91, format: 'wasm',
                    target: 'wasm', functions: [add.signature] }, /not a WebAssembly module/, Buffer.from('nope'));
  await expectError(page, 'a module without the function', { op: 'load_module', module: 92, format: 'wasm',
                    target: 'wasm', functions: [{ ...add.signature, name: 'sub' }] }, /has no function sub/,
                    file(add.modules.wasm));
  await expectError(page, 'an unknown module format', { op: 'load_module', module: 93, format: 'so', functions: [] },
                    /not "so"/);
  const boom = { name: 'boom', args: [], symbols: [] };
  await ok(page, { op: 'load_module', module: 94, format: 'wasm', target: 'wasm', functions: [boom] }, trapModule());
  await expectError(page, 'a wasm trap', { op: 'call', module: 94, function: 'boom', args: [] },
                    /kernel boom trapped: .*unreachable/);
  await expectError(page, 'a module importing what the page lacks', { op: 'load_module', module: 95, format: 'wasm',
                    target: 'wasm', functions: [boom] }, /imports env\.cudaMalloc, which the page does not provide/,
                    trapModule('cudaMalloc'));
  // A lost WebGL2 context: its modules fail clearly, a module loaded afterwards runs.
  if (onWebgl) {
    await page.evaluate(() => window.tensorirRpc.handler.canvas.getContext('webgl2')
      .getExtension('WEBGL_lose_context').loseContext());
    await expectError(page, 'a module of a lost WebGL2 context', { op: 'call', module: onWebgl.module, function: 'add',
                      args: onWebgl.callArgs }, /context was lost/);
    await section('a module loaded after the context was lost', async () => {
      const again = await runCase(page, add, 'webgl');
      report(again.module > onWebgl.module, 'a webgl module loaded after the context was lost runs');
    });
  }
  await expectError(page, 'an unknown op', { op: 'explode' }, /unknown op "explode"/);
  const stray = await call(page, { type: 'hello' });
  report(stray && stray.header.type === 'error' && stray.header.id === null, 'error: a frame of an unknown type',
         stray && stray.header.message);

  await section('models', () => modelTests(page));

  // close frees everything the session made.
  const closed = await call(page, { type: 'close' });
  report(closed && closed.header.type === 'closed', 'close is answered "closed"', JSON.stringify(closed && closed.header));
  await expectError(page, 'a module after close', { op: 'call', module: 94, function: 'boom', args: [] },
                    /unknown module handle 94/);
}

// ---- the page over the stand-in proxy ----
async function socketTests(page, first) {
  const conn = first;
  conn.send(encodeFrame({ type: 'open' }));
  conn.send(encodeFrame({ type: 'request', id: 1, op: 'alloc', handle: 1, device: 'wasm', nbytes: 8 }));
  let f = await nextFrame(conn);
  report(f && f.header.type === 'reply' && f.header.id === 1, 'over the socket: alloc answered', JSON.stringify(f && f.header));
  const busy = await page.evaluate(() => window.tensorirRpcStatus);
  conn.send(encodeFrame({ type: 'request', id: 2, op: 'write', handle: 1, offset: 0 }, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8)));
  conn.send(encodeFrame({ type: 'request', id: 3, op: 'read', handle: 1, offset: 2, nbytes: 4 }));
  f = await nextFrame(conn);
  const g = await nextFrame(conn);
  report(f.header.id === 2 && g.header.id === 3 && hex(g.payload) === '03040506' && busy === 'busy',
         'over the socket: write and read answered in order, status busy', `${hex(g.payload)}, ${busy}`);
  conn.sendText('hello');
  f = await nextFrame(conn);
  report(f.header.type === 'error' && /text WebSocket message/.test(f.header.message), 'over the socket: a text message',
         f.header.message);
  conn.send(encodeFrame({ type: 'close' }));
  conn.send(encodeFrame({ type: 'request', id: 4, op: 'read', handle: 1, offset: 0, nbytes: 1 }));
  f = await nextFrame(conn);
  report(f.header.type === 'closed', 'over the socket: close answered "closed"', JSON.stringify(f.header));
  f = await nextFrame(conn);
  report(f.header.type === 'error' && /unknown array handle 1/.test(f.header.message), 'over the socket: close frees the session');
  await page.waitForFunction(() => window.tensorirRpcStatus === 'registered', null, { timeout: 5000 });
  report(true, 'over the socket: registered again after close');

  // A malformed frame: an error, then the page closes and connects again.
  conn.send(Buffer.from('XXXXnot a frame'));
  f = await nextFrame(conn);
  report(f && f.header.type === 'error' && /does not start with "TRPC"/.test(f.header.message),
         'over the socket: a malformed frame is answered', f && f.header.message);
  await within(conn.closed, 5000, 'the page did not close after a malformed frame');
  const second = await nextConnection(15000);
  await expectRegister(second, 'after the page closed');

  // The proxy goes away (a restart): the page connects again by itself.
  second.close();
  await within(second.closed, 5000, 'the connection did not close');
  const third = await nextConnection(15000);
  await expectRegister(third, 'after the proxy closed');
  const log = await page.evaluate(() => document.getElementById('log').textContent);
  report(/connecting again in/.test(log) && /registered as "test"/.test(log), 'the page logs what happens');
  third.close();
}

const server = await startServer([['/', join(repoRoot, 'web')], ['/tensorir/', join(repoRoot, 'web', 'runtime')]],
                                 { upgrade });
let session = null;
try {
  session = await launchBrowser(await importPlaywright(repoRoot), { executable: chromiumPath, swiftshader: false });
  const page = await (await session.browser.newContext()).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}/rpc.html?key=test&token=T`);
  const first = await nextConnection(15000);
  const info = await expectRegister(first, 'first connection');
  await page.waitForFunction(() => window.tensorirRpcStatus === 'registered', null, { timeout: 5000 });
  const shown = await page.evaluate(() => document.getElementById('devices').textContent);
  report(info && shown.includes('webgl') && shown.includes('max_texture_size') && shown.includes('wasm'),
         'the page shows its devices', shown);
  await section('handler', () => handlerTests(page));
  await section('socket', () => socketTests(page, first));
  report(errors.length === 0, 'no uncaught errors on the page', errors.join('; '));
} catch (e) {
  report(false, 'rpc page', e.stack || e.message);
} finally {
  if (session) await session.close();
  await server.close();
}
if (failed) {
  console.error(`${failed} check(s) failed`);
  process.exitCode = 1;
}
