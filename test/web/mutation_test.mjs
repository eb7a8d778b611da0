// Mutation test of web packages under Node: thousands of damaged copies of one package, each
// made from a seeded generator, each of which must either load and give the expected output or
// be refused with a TensorirError that says why. Anything else fails: an engine error (a
// TypeError, a RangeError), one wrapped by load()'s catch-all (a TensorirError whose `cause`
// is not a TensorirError), a hang, or a plan edit that loads and answers wrongly.
//
// The WebAssembly package (the smallest with weights and several kernels) is mutated in its
// plan (model.json: numbers nudged, doubled, zeroed, negated, made huge or of another type,
// members deleted, list entries duplicated or swapped, names changed) and in its weights
// (params.bin: bytes flipped or zeroed, the file truncated or extended), mostly with the
// size and checksum in model.json written anew so that the deeper checks are reached, some
// with them stale. A weight mutant that keeps the file's layout may change the answer (the
// weights differ); nothing else may. The WebGL2 build of an index package (the newest format
// version, the smallest) goes through validateModel and validateParams only: Node has no
// WebGL2. The table at the end counts the outcomes, the refusals by the first words of their
// messages, and the kinds of mutation.
//
//   node mutation_test.mjs WASM_PACKAGES_DIR [--index INDEX_PACKAGES_DIR] [--seed N] [--only INDEX]
//                          [--plan N] [--weights N] [--webgl N] [--webgl-params N] [--verbose]
//
// Each mutant is numbered; `--only INDEX` (with the same --seed) makes and runs that one
// alone, inline, printing what it did.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const DEFAULT_SEED = 20240611;
const HANG_MS = 20000;  // no mutant of these small packages takes a second
const START_MS = 60000;  // the worker loading the runtime and the packages

// ---------------------------------------------------------------- the seeded generator

function mix32(x) {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

// mulberry32, seeded from (seed, index): each mutant's own stream.
function generator(seed, index) {
  let a = mix32(mix32(seed >>> 0) ^ Math.imul(index + 1, 0x9e3779b1));
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
  };
}

// ---------------------------------------------------------------- mutating JSON

// Every path below `root` (arrays of keys), the root's own members included.
function paths(value, prefix = [], out = []) {
  if (value !== null && typeof value === 'object') {
    for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
      const p = [...prefix, key];
      out.push(p);
      paths(value[key], p, out);
    }
  }
  return out;
}

const getAt = (root, path) => path.reduce((v, k) => v[k], root);
const show = (v) => {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 40 ? `${s.slice(0, 37)}...` : s;
};
const pathText = (path) => path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('').slice(1);

// Strings of the document, for "another name" (a kernel named as another, ...).
function strings(value, out = new Set()) {
  if (typeof value === 'string') out.add(value);
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}

// Replaces (or deletes) the value at `path` of `doc` by one mutation; returns [kind, text].
function mutateJson(doc, rng) {
  // A top-level member first, each as likely (else the graph's many nodes would take most
  // mutants), then any path inside it, a list a third of the time (lists are few, and the
  // order of their entries matters).
  const top = rng.pick(Object.keys(doc));
  const all = [[top], ...paths(doc[top], [top])];
  const lists = all.filter((p) => Array.isArray(getAt(doc, p)) && getAt(doc, p).length > 1);
  const path = rng.next() < 1 / 3 && lists.length ? rng.pick(lists) : rng.pick(all);
  const parent = getAt(doc, path.slice(0, -1));
  const key = path[path.length - 1];
  const old = parent[key];
  const set = (kind, v) => {
    parent[key] = v;
    return [kind, `${kind} at ${pathText(path)}: ${show(old)} -> ${show(v)}`];
  };
  const remove = () => {
    if (Array.isArray(parent)) parent.splice(key, 1);
    else delete parent[key];
    return ['delete member', `delete ${pathText(path)} (${show(old)})`];
  };
  const others = [...strings(doc)].filter((s) => s !== old);
  if (typeof old === 'number') {
    const op = rng.pick(['+1', '-1', 'x2', 'zero', 'negative', '2^31', '2^53', 'fraction', 'string', 'null',
                         'array', 'delete']);
    switch (op) {
      case '+1': return set('number +1', old + 1);
      case '-1': return set('number -1', old - 1);
      case 'x2': return set('number x2', old * 2);
      case 'zero': return set('number to 0', 0);
      case 'negative': return set('number negative', old === 0 ? -1 : -old);
      case '2^31': return set('number 2^31', 2 ** 31);
      case '2^53': return set('number 2^53', 2 ** 53);
      case 'fraction': return set('number + 0.5', old + 0.5);
      case 'string': return set('number to string', String(old));
      case 'null': return set('to null', null);
      case 'array': return set('to array', [old]);
      default: return remove();
    }
  }
  if (typeof old === 'string') {
    const op = rng.pick(['rename', 'another', 'empty', 'number', 'null', 'array', 'delete']);
    switch (op) {
      case 'rename': return set('rename', `${old}_x`);
      case 'another': return set('another name', others.length ? rng.pick(others) : `${old}_y`);
      case 'empty': return set('empty string', '');
      case 'number': return set('string to number', rng.pick([0, 1, -1]));
      case 'null': return set('to null', null);
      case 'array': return set('to array', [old]);
      default: return remove();
    }
  }
  if (Array.isArray(old)) {
    const op = rng.pick(['duplicate', 'swap', 'drop', 'empty', 'null', 'object', 'delete']);
    const copy = structuredClone(old);
    if (op === 'duplicate' || (op === 'swap' && old.length < 2) || (op === 'drop' && old.length === 0)) {
      if (!old.length) return set('to null', null);
      const i = rng.int(old.length);
      copy.splice(i + rng.int(2), 0, structuredClone(old[i]));
      return set('duplicate entry', copy);
    }
    switch (op) {
      case 'swap': {
        const i = rng.int(old.length);
        const j = (i + 1 + rng.int(old.length - 1)) % old.length;
        [copy[i], copy[j]] = [copy[j], copy[i]];
        return set('swap entries', copy);
      }
      case 'drop': copy.splice(rng.int(old.length), 1); return set('drop entry', copy);
      case 'empty': return set('empty list', []);
      case 'null': return set('to null', null);
      case 'object': return set('list to object', {});
      default: return remove();
    }
  }
  if (old !== null && typeof old === 'object') {
    const keys = Object.keys(old);
    const op = rng.pick(['drop', 'drop', 'null', 'array', 'string', 'empty', 'delete']);
    switch (op) {
      case 'drop': {
        if (!keys.length) return set('to null', null);
        const copy = structuredClone(old);
        delete copy[rng.pick(keys)];
        return set('delete member', copy);
      }
      case 'null': return set('to null', null);
      case 'array': return set('object to list', [old]);
      case 'string': return set('object to string', 'x');
      case 'empty': return set('empty object', {});
      default: return remove();
    }
  }
  return old === null ? set('null to number', 0) : set('to null', null);
}

// ---------------------------------------------------------------- mutating bytes

function fnvHex(bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; ++i) h = Math.imul(h ^ bytes[i], 0x01000193);
  return '0x' + (h >>> 0).toString(16).padStart(8, '0');
}

// A mutation of a file's bytes: {kind, text, bytes, layout (the file keeps its layout)}.
function mutateBytes(original, rng) {
  const b = new Uint8Array(original);
  const op = rng.pick(['flip', 'flip', 'flip', 'zero', 'truncate', 'truncate', 'extend', 'extend']);
  if (op === 'flip') {
    const n = 1 + rng.int(4), at = [];
    for (let k = 0; k < n; ++k) {
      const i = rng.int(b.length);
      b[i] ^= 1 + rng.int(255);
      at.push(i);
    }
    return { kind: 'flip bytes', text: `flip bytes ${at.join(', ')}`, bytes: b, layout: true };
  }
  if (op === 'zero') {
    const i = rng.int(b.length), n = 1 + rng.int(64);
    b.fill(0, i, i + n);
    return { kind: 'zero bytes', text: `zero bytes [${i}, ${Math.min(i + n, b.length)})`, bytes: b, layout: true };
  }
  if (op === 'truncate') {
    const n = rng.next() < 0.5 ? 1 + rng.int(4) : 1 + rng.int(b.length);
    return { kind: 'truncate', text: `truncate by ${n} to ${b.length - n} bytes`, bytes: b.slice(0, b.length - n),
             layout: false };
  }
  const n = rng.next() < 0.5 ? 1 + rng.int(8) : 1 + rng.int(1024);
  const out = new Uint8Array(b.length + n);
  out.set(b);
  for (let i = b.length; i < out.length; ++i) out[i] = rng.int(256);
  return { kind: 'extend', text: `extend by ${n} bytes`, bytes: out, layout: false };
}

// ---------------------------------------------------------------- the packages

function loadFixture(args) {
  const dir = args.dir;
  const packages = readdirSync(dir).filter((n) => existsSync(join(dir, n, 'model.json'))).sort();
  const read = (n, f) => readFileSync(join(dir, n, f));
  // The smallest package with weights and several kernels (results passed between kernels).
  const candidates = packages.map((n) => [n, JSON.parse(read(n, 'model.json'))])
    .filter(([, j]) => j.format === 'tensorir-wasm' && j.params.bytes >= 8 && j.kernels.length >= 2)
    .sort((a, b) => (a[1].params.bytes + a[1].module.bytes) - (b[1].params.bytes + b[1].module.bytes));
  if (!candidates.length) throw new Error(`${dir} holds no WebAssembly package with weights and several kernels`);
  const name = args.package || candidates[0][0];
  const fixture = {
    name,
    files: Object.fromEntries(['model.json', 'model.wasm', 'model.threads.wasm', 'params.bin', 'test_input.bin',
                               'test_expected.bin', 'test.json'].map((f) => [f, new Uint8Array(read(name, f))])),
  };
  if (args.index) {
    // The smallest index package's WebGL2 build of the newest format version (passes with
    // several render targets).
    const builds = readdirSync(args.index).filter((n) => existsSync(join(args.index, n, 'webgl', 'model.json')))
      .map((n) => [n, JSON.parse(readFileSync(join(args.index, n, 'webgl', 'model.json'), 'utf8'))])
      .sort((a, b) => b[1].version - a[1].version || a[1].params.bytes - b[1].params.bytes);
    if (!builds.length) throw new Error(`${args.index} holds no index package with a webgl build`);
    fixture.webgl = {
      name: builds[0][0],
      json: builds[0][1],
      params: new Uint8Array(readFileSync(join(args.index, builds[0][0], 'webgl', 'params.bin'))),
    };
  }
  return fixture;
}

// The mutants by number: [0, plan) the WebAssembly package's model.json, then its params.bin,
// then the WebGL2 package's model.json, then its params.bin.
function ranges(args) {
  const r = [['plan', args.plan], ['weights', args.weights]];
  if (args.index) r.push(['webgl plan', args.webgl], ['webgl params', args.webglParams]);
  let start = 0;
  return r.map(([group, n]) => {
    const e = { group, start, end: start + n };
    start += n;
    return e;
  });
}

// ---------------------------------------------------------------- running one mutant

const decoder = new TextDecoder();

// Serves `files` (name -> bytes) at http://mutant.invalid/<index>/<name>; anything else is a 404.
function serve(index, files) {
  const base = `http://mutant.invalid/${index}/`;
  globalThis.fetch = async (url) => {
    const u = String(url);
    const f = u.startsWith(base) ? files[u.slice(base.length)] : undefined;
    return f ? new Response(f, { status: 200 }) : new Response('', { status: 404, statusText: 'Not Found' });
  };
  return `${base}model.json`;
}

// Whether `e` is what a refusal must be: a TensorirError with a message, not wrapping an
// engine error.
function refusal(e, TensorirError) {
  if (!(e instanceof TensorirError)) {
    const kind = e && e.constructor ? e.constructor.name : typeof e;
    return { ok: false, why: `${kind}: ${e && e.message ? e.message : e}` };
  }
  const text = e.message.replace(/^tensorir: /, '').trim();
  if (!text) return { ok: false, why: 'a TensorirError without a message' };
  if (e.cause !== undefined && !(e.cause instanceof TensorirError)) {
    const kind = e.cause && e.cause.constructor ? e.cause.constructor.name : 'an error';
    return { ok: false, why: `${e.message} (wrapping a ${kind} the checks did not foresee)` };
  }
  return { ok: true, text };
}

function floats(bytes) {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

// Mutant `index`: {group, kind, text, json (the mutated model.json), files (the WebAssembly
// package's, params.bin mutated) or webglParams, layout (weights changed, layout kept)}.
function makeMutant(index, fixture, args) {
  const group = ranges(args).find((r) => index >= r.start && index < r.end);
  if (!group) throw new Error(`there is no mutant ${index} (there are ${ranges(args).at(-1).end})`);
  const rng = generator(args.seed, index);
  const webgl = group.group.startsWith('webgl');
  const m = { group: group.group, layout: false, files: { ...fixture.files },
              webglParams: webgl ? fixture.webgl.params : null };
  m.json = webgl ? structuredClone(fixture.webgl.json) : JSON.parse(decoder.decode(fixture.files['model.json']));
  if (group.group === 'plan' || group.group === 'webgl plan') {
    [m.kind, m.text] = mutateJson(m.json, rng);
    return m;
  }
  const b = mutateBytes(webgl ? fixture.webgl.params : fixture.files['params.bin'], rng);
  // A fifth keep model.json's size and checksum, stale.
  const stale = rng.next() < 0.2;
  m.kind = `${b.kind}${stale ? ', checksum stale' : ''}`;
  m.text = `${b.text} of params.bin${stale ? ', model.json unchanged' : ', size and checksum written anew'}`;
  m.layout = b.layout && !stale;
  if (!stale) {
    m.json.params.bytes = b.bytes.length;
    m.json.params.fnv1a32 = fnvHex(b.bytes);
  }
  if (webgl) m.webglParams = b.bytes;
  else m.files['params.bin'] = b.bytes;
  return m;
}

// Makes mutant `index` and runs it: {group, kind, text, outcome: 'ok' | 'weights differ' |
// 'accepted' | 'refused', reason} or {..., failure}.
async function runMutant(index, fixture, args, rt) {
  const m = makeMutant(index, fixture, args);
  const result = { group: m.group, kind: m.kind, text: m.text };
  if (args.verbose) console.log(`mutant ${index} (${m.group}): ${m.text}`);
  const refused = (e) => {
    const r = refusal(e, rt.TensorirError);
    return r.ok ? { ...result, outcome: 'refused', reason: r.text } : { ...result, failure: r.why };
  };

  if (m.group.startsWith('webgl')) {
    // No WebGL2 under Node: the checks load() makes before it touches the GPU.
    try {
      rt.validateModel(m.json, 'model.json');
      const p = m.webglParams;
      rt.validateParams(m.json, p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength), 'params.bin');
      return { ...result, outcome: 'accepted' };
    } catch (e) {
      return refused(e);
    }
  }

  m.files['model.json'] = new TextEncoder().encode(JSON.stringify(m.json));
  const test = JSON.parse(decoder.decode(fixture.files['test.json']));
  let model;
  try {
    model = await rt.tensorir.load(serve(index, m.files));
    const out = await model.run({ [test.input]: floats(fixture.files['test_input.bin']) });
    const got = out[test.output];
    const want = floats(fixture.files['test_expected.bin']);
    if (!(got instanceof Float32Array) || got.length !== want.length) {
      return { ...result, failure: `it ran, but output "${test.output}" is ` +
                                   `${got === undefined ? 'missing' : `${got.length} values`}` };
    }
    let maxAbs = 0, maxRef = 0;
    for (let i = 0; i < want.length; ++i) {
      maxAbs = Math.max(maxAbs, Math.abs(got[i] - want[i]));
      maxRef = Math.max(maxRef, Math.abs(want[i]));
    }
    const rel = maxRef > 0 ? maxAbs / maxRef : maxAbs;
    if (rel <= test.tolerance) return { ...result, outcome: 'ok' };  // NaN is not
    if (m.layout) return { ...result, outcome: 'weights differ' };
    return { ...result, failure: `it ran, but the output differs (max rel err ${rel})` };
  } catch (e) {
    return refused(e);
  } finally {
    if (model) model.dispose();
  }
}

// A refusal's reason, bucketed: URLs by their file name, then names, numbers, lists and
// other values as "…", the first words.
function bucket(reason) {
  const words = reason
    .replace(/https?:\/\/\S*\/([^/\s]+)/g, '$1')
    .replace(/\bfetching \S+/g, 'fetching …')
    .replace(/"[^"]*"/g, '…')
    .replace(/\bkernel \S* ?\(kernels\[\d+\]\)/g, 'kernel …')
    .replace(/\bk\d+_\w+|#\d+/g, '…')
    .replace(/[[{][^\])}]*[\])}]/g, '…')
    .replace(/\b0x[0-9a-f]+\b/gi, '…')
    .replace(/-?\b\d+(\.\d+)?(e[-+]?\d+)?\b/gi, '…')
    .replace(/\b(null|undefined|true|false)\b/g, '…')
    .replace(/…(\s*…)+/g, '…')
    .split(/\s+/).filter(Boolean);
  return words.slice(0, 6).join(' ').replace(/[;,:]$/, '');
}

async function runtimeModules() {
  const tensorir = await import('../../web/runtime/tensorir.js');
  const { validateModel, validateParams } = await import('../../web/runtime/validate.js');
  return { tensorir, validateModel, validateParams, TensorirError: tensorir.TensorirError };
}

// ---------------------------------------------------------------- worker and main

if (!isMainThread) {
  const { args, from, to } = workerData;
  const fixture = loadFixture(args);
  const rt = await runtimeModules();
  for (let i = from; i < to; ++i) {
    parentPort.postMessage({ start: i });
    let r;
    try {
      r = await runMutant(i, fixture, args, rt);
    } catch (e) {
      r = { failure: `the test itself failed: ${e && e.stack ? e.stack : e}` };
    }
    parentPort.postMessage({ index: i, result: r });
  }
} else {
  await main();
}

function parseArgs(argv) {
  const args = { seed: DEFAULT_SEED, plan: 3000, weights: 2000, webgl: 2000, webglParams: 500, only: null,
                 index: null, package: null, verbose: false, report: null };
  const rest = [];
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${a} takes a whole number`);
      return v;
    };
    if (a === '--seed') args.seed = num();
    else if (a === '--only') args.only = num();
    else if (a === '--plan') args.plan = num();
    else if (a === '--weights') args.weights = num();
    else if (a === '--webgl') args.webgl = num();
    else if (a === '--webgl-params') args.webglParams = num();
    else if (a === '--index') args.index = argv[++i];
    else if (a === '--package') args.package = argv[++i];
    else if (a === '--verbose') args.verbose = true;
    else if (a === '--report') args.report = argv[++i];
    else rest.push(a);
  }
  args.dir = rest[0];
  return args;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
  if (!args.dir || !existsSync(args.dir)) {
    console.error('usage: node mutation_test.mjs WASM_PACKAGES_DIR [--index INDEX_PACKAGES_DIR] [--seed N] ' +
                  '[--only INDEX] [--plan N] [--weights N] [--webgl N] [--webgl-params N] [--verbose]');
    process.exit(2);
  }
  const fixture = loadFixture(args);
  const groups = ranges(args);
  const total = groups[groups.length - 1].end;
  console.log(`seed ${args.seed}; WebAssembly package ${fixture.name}` +
              (fixture.webgl ? `; WebGL2 package ${fixture.webgl.name} (checks only)` : '') +
              `; mutants ${groups.map((g) => `${g.group} [${g.start}, ${g.end})`).join(', ')}`);

  if (args.only !== null) {
    args.verbose = true;
    const rt = await runtimeModules();
    const r = await runMutant(args.only, fixture, args, rt);
    if (r.failure) {
      console.log(`FAIL  mutant ${args.only}: ${r.failure}`);
      process.exit(1);
    }
    console.log(`mutant ${args.only}: ${r.outcome}${r.reason ? `: ${r.reason}` : ''}`);
    process.exit(0);
  }

  const results = new Array(total);
  const failures = [];
  await new Promise((resolve) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { args, from: 0, to: total } });
    let current = -1, timer = null;
    const arm = (ms) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        failures.push([current, current < 0 ? `the test's worker did not start within ${ms / 1000} s`
                                            : `it did not finish within ${ms / 1000} s (a hang)`]);
        worker.terminate();
      }, ms);
    };
    worker.on('message', (m) => {
      if (m.start !== undefined) {
        current = m.start;
        arm(HANG_MS);
        return;
      }
      results[m.index] = m.result;
      if (m.result.failure) failures.push([m.index, m.result.failure]);
    });
    worker.on('error', (e) => {
      failures.push([current, `the worker died: ${e && e.stack ? e.stack : e}`]);
    });
    worker.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    arm(START_MS);
  });

  // The table: outcomes per group, refusals by reason, mutations by kind.
  const count = (map, key) => map.set(key, (map.get(key) || 0) + 1);
  const outcomes = new Map(), reasons = new Map(), kinds = new Map();
  for (const r of results) {
    if (!r || r.failure) continue;
    count(outcomes, `${r.group}: ${{ ok: 'ran, output as expected', 'weights differ':
      'ran, output differs because the weights differ', accepted: 'accepted by the checks (not run: no WebGL2)',
      refused: 'refused with a TensorirError' }[r.outcome]}`);
    if (r.reason) count(reasons, `${r.group.startsWith('webgl') ? 'webgl' : 'wasm'}: ${bucket(r.reason)}`);
    count(kinds, `${r.group}: ${r.kind}`);
  }
  // Printed, and written to --report FILE for `make test` to show.
  const lines = [];
  const table = (title, map) => {
    lines.push(`\n${title}`);
    const rows = [...map].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const [k, n] of rows) lines.push(`  ${String(n).padStart(6)}  ${k}`);
  };
  table('Outcomes', outcomes);
  table('Refusals by reason', reasons);
  table('Mutations by kind', kinds);
  const done = results.filter(Boolean).length;
  lines.push(`\n${done} of ${total} mutants run, ${failures.length} failed (seed ${args.seed})`);
  console.log(lines.join('\n'));
  if (args.report) {
    mkdirSync(dirname(args.report), { recursive: true });
    writeFileSync(args.report, `web package mutants (test/web/mutation_test.mjs)\n${lines.join('\n')}\n`);
  }
  // The options that decide what mutant i is, for the line that reproduces it.
  const defaults = parseArgs([]);
  const options = [['--index', 'index'], ['--package', 'package'], ['--plan', 'plan'], ['--weights', 'weights'],
                   ['--webgl', 'webgl'], ['--webgl-params', 'webglParams']]
    .filter(([, key]) => args[key] !== defaults[key]).map(([flag, key]) => ` ${flag} ${args[key]}`).join('');
  for (const [i, why] of failures) {
    if (i < 0) {
      console.log(`FAIL  ${why}`);
      continue;
    }
    const m = makeMutant(i, fixture, args);
    console.log(`FAIL  mutant ${i} (${m.group}: ${m.text}): ${why}\n      ` +
                `reproduce: node test/web/mutation_test.mjs ${args.dir}${options} --seed ${args.seed} --only ${i}`);
  }
  process.exit(failures.length || done !== total ? 1 : 0);
}
