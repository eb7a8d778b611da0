#!/usr/bin/env node
// ResNet-18 in one headless Chromium: the tensorir web packages (built for "webgl" and for
// "wasm") next to TensorFlow.js (webgl) and ONNX Runtime Web (wasm, webgl), the peers
// rebuilt from the package's graph and
// params.bin, under the same browser flags. Each engine's output is checked against a CPU
// reference; a wrong one is reported as WRONG. See README.md.
//
//   node bench/web/run_bench.mjs [--package DIR] [--wasm-package DIR] [--tuning-log FILE] [--runs 20]
//        [--warmup 3] [--json] [--swiftshader] [--engines a,b] [--threads N] [--profile] [--keep] [--verbose]
import {spawnSync} from 'node:child_process';
import {createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const ALL_ENGINES = ['tensorir', 'tensorir-wasm', 'tensorir-tuned', 'tensorir-wasm-tuned', 'tfjs-webgl', 'onnxruntime-web-wasm', 'onnxruntime-web-webgl'];
const BACKENDS = {'tensorir': 'webgl', 'tensorir-wasm': 'wasm', 'tensorir-tuned': 'webgl', 'tensorir-wasm-tuned': 'wasm',
                  'tfjs-webgl': 'webgl', 'onnxruntime-web-wasm': 'wasm',
                  'onnxruntime-web-webgl': 'webgl'};
const TOLERANCE = 1e-3;  // max |out - ref| / max |ref|
const log = (...a) => console.error('[bench/web]', ...a);

function usage(msg) {
  if (msg) console.error(`run_bench.mjs: ${msg}`);
  console.error('usage: node bench/web/run_bench.mjs [--package DIR] [--peer-package DIR] [--wasm-package DIR] [--tuning-log FILE] [--runs N] [--warmup N] [--json] [--swiftshader]\n' +
                `       [--engines ${ALL_ENGINES.join(',')}] [--threads N] [--chromium PATH] [--profile] [--keep] [--verbose]`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = {runs: 20, warmup: 3, json: false, swiftshader: false, engines: ALL_ENGINES, threads: os.cpus().length,
             chromium: process.env.CHROMIUM || '/usr/bin/chromium', keep: false, verbose: false, profile: false, pkg: null, peerPkg: null};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    const int = (v, min) => (Number.isInteger(+v) && +v >= min ? +v : usage(`${a} wants an integer >= ${min}, got '${v}'`));
    if (a === '--package') o.pkg = path.resolve(val());
    else if (a === '--peer-package') o.peerPkg = path.resolve(val());
    else if (a === '--wasm-package') o.wasmPkg = path.resolve(val());
    else if (a === '--tuning-log') o.tuningLog = path.resolve(val());
    else if (a === '--runs') o.runs = int(val(), 1);
    else if (a === '--warmup') o.warmup = int(val(), 1);
    else if (a === '--threads') o.threads = int(val(), 1);
    else if (a === '--json') o.json = true;
    else if (a === '--swiftshader') o.swiftshader = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--verbose') o.verbose = true;
    else if (a === '--profile') o.profile = true;
    else if (a === '--chromium') o.chromium = val();
    else if (a === '--engines') {
      o.engines = val().split(',').filter(Boolean);
      for (const e of o.engines) if (!ALL_ENGINES.includes(e)) usage(`unknown engine '${e}' (known: ${ALL_ENGINES.join(', ')})`);
    } else if (a === '-h' || a === '--help') usage();
    else usage(`unknown argument '${a}'`);
  }
  // The tuned engines run packages built with the log, next to the untuned ones.
  const tuned = o.engines.filter(e => e.endsWith('-tuned'));
  if (!o.tuningLog) o.engines = o.engines.filter(e => !tuned.includes(e));
  else if (!existsSync(o.tuningLog)) usage(`--tuning-log ${o.tuningLog}: no such file`);
  return o;
}

// node_modules comes from package-lock.json, installed on first use.
function ensureNodeModules() {
  const need = ['playwright-core', '@tensorflow/tfjs', 'onnxruntime-web'];
  if (need.every(p => existsSync(path.join(HERE, 'node_modules', p, 'package.json')))) return;
  log('installing playwright-core, @tensorflow/tfjs, onnxruntime-web (npm ci)');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {cwd: HERE, stdio: ['ignore', 2, 2]});
  if (r.status !== 0) throw new Error(`npm ci in ${HERE} failed (exit ${r.status}); the npm registry must be reachable`);
}

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, {encoding: 'utf8'});
  if (r.error) throw new Error(`${what}: cannot start ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

function findExporter() {
  const c = [process.env.TENSORIR_CLI];
  for (const b of ['release', 'webcpp']) c.push(path.join(REPO, 'build', b, 'tensorir'));
  const hit = c.filter(Boolean).find(p => existsSync(p));
  if (!hit) throw new Error(`no --package given and no tensorir command line found (looked for ${c.join(', ')}); build it (make build) or pass --package DIR`);
  return hit;
}

const readF32 = p => {
  const b = readFileSync(p);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
};

function relErr(out, ref) {
  if (!out || out.length !== ref.length) return Infinity;
  let diff = 0, scale = 0;
  for (let i = 0; i < ref.length; ++i) {
    const d = Math.abs(out[i] - ref[i]);
    diff = Number.isNaN(d) ? Infinity : Math.max(diff, d);
    scale = Math.max(scale, Math.abs(ref[i]));
  }
  return diff / scale;
}

// Seeded uniform [-1, 1) input for packages that bring none.
function seededInput(n) {
  const a = new Float32Array(n);
  let s = 0x9e3779b9 >>> 0;
  for (let i = 0; i < n; ++i) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    a[i] = s / 2 ** 31 - 1;
  }
  return a;
}

// Input + expected output: the package's own test files, else those of the test package
// with the same params (same FNV-1a), else a seeded input and the numpy reference.
function chooseReference(pkgDir, peerDir, meta, work, python) {
  const numel = meta.inputs[0].shape.reduce((a, b) => a * b, 1);
  const candidates = [pkgDir, ...['release', 'webcpp'].map(b => path.join(REPO, 'build', b, 'test/web/packages', meta.name || 'resnet18'))];
  let input = null, expected = null, source = null;
  for (const d of candidates) {
    const i = path.join(d, 'test_input.bin'), e = path.join(d, 'test_expected.bin');
    if (!existsSync(i) || !existsSync(e)) continue;
    if (d !== pkgDir) {
      const other = JSON.parse(readFileSync(path.join(d, 'model.json'), 'utf8'));
      if (other.params.fnv1a32 !== meta.params.fnv1a32 || other.params.bytes !== meta.params.bytes) continue;
    }
    if (statSync(i).size !== numel * 4) continue;
    [input, expected, source] = [i, e, `${path.relative(REPO, e).startsWith('..') ? e : path.relative(REPO, e)}`];
    break;
  }
  if (!input) {
    input = path.join(work, 'input.bin');
    writeFileSync(input, Buffer.from(seededInput(numel).buffer));
  }
  // The numpy float64 evaluation of the graph: the expected output when the package has
  // none, and otherwise a check that the graph is read as the runtime reads it.
  const numpyOut = path.join(work, 'reference.bin');
  let numpy = null;
  try {
    run(python, ['-B', path.join(HERE, 'reference.py'), peerDir, '--input', input, '--output', numpyOut], 'reference.py');
    numpy = readF32(numpyOut);
  } catch (e) {
    if (!expected) throw e;
    log(`numpy reference skipped: ${e.message.split('\n')[0]}`);
  }
  if (!expected) [expected, source] = [numpyOut, 'numpy float64 (reference.py)'];
  const exp = readF32(expected);
  return {input, expected: exp, source, graphCheck: numpy && expected !== numpyOut ? relErr(numpy, exp) : null};
}

const TYPES = {'.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json',
               '.wasm': 'application/wasm', '.bin': 'application/octet-stream', '.onnx': 'application/octet-stream'};

// Static files on 127.0.0.1, cross-origin isolated (COOP/COEP) so ORT's wasm threads work.
function startServer(routes) {
  const server = http.createServer((req, res) => {
    const headers = {'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp',
                     'Cross-Origin-Resource-Policy': 'same-origin', 'Cache-Control': 'no-store'};
    let url;
    try { url = decodeURIComponent(new URL(req.url, 'http://x').pathname); } catch { url = ''; }
    const route = routes.find(([prefix]) => url.startsWith(prefix));
    const file = route && path.resolve(route[1], '.' + url.slice(route[0].length - 1));
    if (!route || !file.startsWith(path.resolve(route[1])) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, headers).end('not found');
      return;
    }
    headers['Content-Type'] = TYPES[path.extname(file)] || 'application/octet-stream';
    headers['Content-Length'] = statSync(file).size;
    res.writeHead(200, headers);
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const median = a => {
  const s = [...a].sort((x, y) => x - y), n = s.length;
  return n % 2 ? s[(n - 1) / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
};

const state = {browser: null, server: null, work: null, keep: false};
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    if (state.browser) await Promise.race([state.browser.close().catch(() => {}), new Promise(r => setTimeout(r, 10000))]);
    if (state.server) { state.server.closeAllConnections?.(); state.server.close(); }
    if (state.work && !state.keep) rmSync(state.work, {recursive: true, force: true});
    else if (state.work) log(`kept ${state.work}`);
  })();
  return cleaning;
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  state.keep = opt.keep;
  const python = process.env.PYTHON || '/usr/bin/python3';
  ensureNodeModules();
  const {chromium} = await import('playwright-core');
  if (!existsSync(opt.chromium)) throw new Error(`${opt.chromium} not found: apt-get install -y chromium, or pass --chromium PATH`);

  state.work = mkdtempSync(path.join(os.tmpdir(), 'tensorir-bench-web-'));
  let pkgDir = opt.pkg;
  if (!pkgDir) {
    const exporter = findExporter();
    pkgDir = path.join(state.work, 'package');
    log(`exporting resnet18 with ${path.relative(REPO, exporter)}`);
    run(exporter, ['compile', 'resnet18', '--target', 'webgl', '-o', pkgDir], 'tensorir compile');
  }
  if (!existsSync(path.join(pkgDir, 'model.json'))) throw new Error(`${pkgDir}/model.json not found`);
  // The same network built for "wasm" (WebAssembly SIMD, worker threads in this isolated page).
  let wasmDir = opt.wasmPkg;
  if (!wasmDir && opt.engines.includes('tensorir-wasm')) {
    const exporter = findExporter();
    wasmDir = path.join(state.work, 'wasm-package');
    log('exporting resnet18 for wasm');
    run(exporter, ['compile', 'resnet18', '--target', 'wasm', '-o', wasmDir], 'tensorir compile');
  }
  // ResNet-18 compiled with --tuning-log for each tuned engine asked for.
  const tunedDirs = {};
  for (const [engine, target] of [['tensorir-tuned', 'webgl'], ['tensorir-wasm-tuned', 'wasm']]) {
    if (!opt.engines.includes(engine)) continue;
    tunedDirs[target] = path.join(state.work, `tuned-${target}-package`);
    log(`exporting resnet18 for ${target} with the tuning log ${opt.tuningLog}`);
    run(findExporter(), ['compile', 'resnet18', '--target', target, '--tuning-log', opt.tuningLog,
                         '-o', tunedDirs[target]], 'tensorir compile');
  }
  const meta = JSON.parse(readFileSync(path.join(pkgDir, 'model.json'), 'utf8'));
  // The peers are rebuilt from a graph in the network's own layouts: the package's when the
  // layout pass left it so, else a package exported without that pass (same weights).
  let peerDir = opt.peerPkg;
  if (!peerDir) {
    const blocked = meta.graph.nodes.some(n => n.op === 'layout_transform' || (n.attrs && n.attrs.data_layout));
    peerDir = pkgDir;
    if (blocked) {
      const exporter = findExporter();
      peerDir = path.join(state.work, 'peer-package');
      log(`exporting ${meta.name} without the layout pass for the peers`);
      run(exporter, ['compile', meta.name, '--target', 'webgl', '--no-alter-layout', '-o', peerDir], 'tensorir compile');
    }
  }
  const ref = chooseReference(pkgDir, peerDir, meta, state.work, python);
  log(`reference: ${ref.source}` + (ref.graphCheck == null ? '' : `; numpy graph read vs it: ${ref.graphCheck.toExponential(2)}`));
  const onnx = path.join(state.work, 'model.onnx');
  let onnxError = null;  // the ONNX Runtime rows say FAILED with it; the other engines still run
  if (opt.engines.some(e => e.startsWith('onnxruntime'))) {
    try {
      run(python, ['-B', path.join(HERE, 'to_onnx.py'), peerDir, '-o', onnx], 'to_onnx.py');
    } catch (e) {
      onnxError = `${e.message.split('\n').slice(-1)[0]} (needs ${python} with numpy and onnx: apt-get install python3-onnx)`;
      log(onnxError);
    }
  }

  state.server = await startServer([['/bench/', HERE], ['/node_modules/', path.join(HERE, 'node_modules')],
                                    ['/pkg/', pkgDir], ['/peer/', peerDir], ['/data/', state.work],
                                    ...(wasmDir ? [['/wasmpkg/', wasmDir]] : []),
                                    ...(tunedDirs.webgl ? [['/tunedpkg/', tunedDirs.webgl]] : []),
                                    ...(tunedDirs.wasm ? [['/tunedwasmpkg/', tunedDirs.wasm]] : [])]);
  const origin = `http://127.0.0.1:${state.server.address().port}`;
  const gpuFlags = opt.swiftshader ? ['--use-angle=swiftshader', '--enable-unsafe-swiftshader']
                                   : ['--use-angle=gl-egl', '--ignore-gpu-blocklist'];
  const flags = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
                 '--no-first-run', '--disable-quic', '--disable-dev-shm-usage', ...gpuFlags];
  state.browser = await chromium.launch({executablePath: opt.chromium, headless: true, args: flags,
                                         handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false});
  const page = await state.browser.newPage();
  page.on('pageerror', e => log(`page error: ${e.message}`));
  if (opt.verbose) page.on('console', m => log(`console.${m.type()}: ${m.text()}`));
  await page.goto(`${origin}/bench/bench.html`);
  await page.waitForFunction(() => window.benchReady === true);

  const servedInput = path.join(state.work, 'input.bin');  // the input may live outside the served folders
  if (ref.input !== servedInput) writeFileSync(servedInput, readFileSync(ref.input));
  const cfg = {pkg: '/pkg', wasmPkg: '/wasmpkg', tunedPkg: '/tunedpkg', tunedWasmPkg: '/tunedwasmpkg', peerPkg: '/peer', onnx: '/data/model.onnx', input: '/data/input.bin', engines: opt.engines, onnxError,
               threads: opt.threads, inputShape: meta.inputs[0].shape};
  log(`loading ${opt.engines.join(', ')}`);
  const setup = await page.evaluate(c => window.benchSetup(c), cfg);
  const env = setup.env;
  const res = new Map();
  for (const e of setup.engines) {
    res.set(e.name, {...e, times: [], err: 0, first_ms: null,
                     status: e.ok ? 'ok' : (e.name.startsWith('tensorir') ? 'MISSING' : 'FAILED')});
    if (!e.ok) log(`${e.name}: ${e.error}`);
  }
  const live = () => [...res.values()].filter(r => r.status === 'ok' || r.status === 'WRONG');
  const check = (r, out) => { r.err = Math.max(r.err, relErr(out, ref.expected)); if (!(r.err <= TOLERANCE)) r.status = 'WRONG'; };
  const once = async (r, want) => {
    const o = await page.evaluate(([n, w]) => window.benchRun(n, w), [r.name, want]);
    if (o.error) { r.status = 'FAILED'; r.error = o.error; log(`${r.name}: ${o.error}`); }
    return o;
  };

  for (const r of live()) {  // warm-up: shader compiles, first allocations
    for (let i = 0; i < opt.warmup && r.status !== 'FAILED'; ++i) {
      const o = await once(r, i === 0);
      if (i === 0 && !o.error) { r.first_ms = o.ms; check(r, o.out); }
    }
    if (r.status !== 'FAILED') log(`${r.name}: loaded in ${r.load_ms.toFixed(0)} ms, first run ${r.first_ms.toFixed(1)} ms`);
  }
  // Timed rounds: every engine once per round, the order rotating, so drift hits all alike.
  for (let round = 0; round < opt.runs; ++round) {
    const order = live();
    for (let k = 0; k < order.length; ++k) {
      const r = order[(k + round) % order.length];
      if (r.status === 'FAILED') continue;
      const o = await once(r, round === opt.runs - 1);
      if (o.error) continue;
      r.times.push(o.ms);
      if (o.out) check(r, o.out);
    }
    if (opt.verbose || round % 5 === 4) log(`round ${round + 1}/${opt.runs}`);
  }
  // model.profile() of each tensorir engine that ran: its kernels one at a time.
  const profiles = new Map();
  if (opt.profile) {
    for (const [name, r] of res) {
      if (!name.startsWith('tensorir') || r.status !== 'ok') continue;
      const p = await page.evaluate(n => window.benchProfile(n), name);
      if (Array.isArray(p)) profiles.set(name, p);
    }
  }
  return report(opt, res, env, ref, flags, await state.browser.version(), profiles);
}

function report(opt, res, env, ref, flags, browserVersion, profiles) {
  const tr = res.get('tensorir');
  const base = tr && tr.status === 'ok' && tr.times.length ? median(tr.times) : null;
  const tw = res.get('tensorir-wasm');
  const wasmBase = tw && tw.status === 'ok' && tw.times.length ? median(tw.times) : null;
  const rows = opt.engines.map(name => {
    const r = res.get(name);
    const med = r.times.length ? median(r.times) : null;
    return {
      bench: 'web_resnet18', impl: name, backend: r.backend || BACKENDS[name], version: r.version || null,
      median_ms: med, min_ms: r.times.length ? Math.min(...r.times) : null, runs: r.times.length,
      first_ms: r.first_ms, load_ms: r.load_ms ?? null,
      ratio_vs_tensorir: med != null && base != null && r.status === 'ok' ? med / base : null,
      ratio_vs_tensorir_wasm: med != null && wasmBase != null && r.status === 'ok' ? med / wasmBase : null,
      max_rel_err: r.status === 'MISSING' || (r.status === 'FAILED' && !r.first_ms) ? null : r.err,
      status: r.status, error: r.error || null, info: r.info || {},
      renderer: env.gpu.renderer || null, angle: opt.swiftshader ? 'swiftshader' : 'gl-egl',
      browser: browserVersion, cross_origin_isolated: env.crossOriginIsolated, reference: ref.source,
      reference_numpy_check: ref.graphCheck,
    };
  });
  if (opt.json) {
    for (const r of rows) console.log(JSON.stringify(profiles.has(r.impl) ? {...r, profile: profiles.get(r.impl)} : r));
  } else {
    const fmt = (v, d) => (v == null ? '-' : v.toFixed(d));
    console.log(`ResNet-18, batch 1, headless Chromium ${browserVersion}, WebGL2 renderer: ${env.gpu.renderer || 'none'}` +
                ` (max texture ${env.gpu.max_texture_size || '-'})`);
    console.log(`flags: ${flags.filter(f => f.startsWith('--use-angle') || f.includes('gpu') || f.includes('swiftshader')).join(' ')};` +
                ` cross-origin isolated: ${env.crossOriginIsolated}; cores: ${env.cores}`);
    console.log(`reference: ${ref.source}` + (ref.graphCheck == null ? '' : ` (numpy graph read vs it: ${ref.graphCheck.toExponential(2)})`));
    console.log(`median of ${opt.runs} runs after ${opt.warmup} warm-up; time = upload + inference + read-back;` +
                ` ratio = engine ms / tensorir ms; WRONG: max|out-ref|/max|ref| > ${TOLERANCE}`);
    const head = ['impl', 'backend', 'median ms', 'ratio vs tensorir', 'vs tensorir-wasm', 'max rel err', 'status'];
    const body = rows.map(r => [r.impl, r.backend, fmt(r.median_ms, 1), fmt(r.ratio_vs_tensorir, 2),
                                fmt(r.ratio_vs_tensorir_wasm, 2),
                                r.max_rel_err == null ? '-' : r.max_rel_err.toExponential(2),
                                r.status + (r.error ? ` (${r.error.slice(0, 80)})` : '')]);
    const w = head.map((h, i) => Math.max(h.length, ...body.map(b => b[i].length)));
    const line = cells => cells.map((c, i) => (i === 0 || i === 6 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ').trimEnd();
    console.log(line(head));
    for (const b of body) console.log(line(b));
    for (const r of rows) if (r.info && Object.keys(r.info).length) console.log(`  ${[r.impl, r.version].filter(Boolean).join(" ")}: ${JSON.stringify(r.info)}`);
    for (const [name, profile] of profiles) {
      const total = profile.reduce((a, k) => a + (k.ms || 0), 0);
      console.log(`${name} profile (model.profile(), ${profile.length} kernels, ${total.toFixed(1)} ms in all), slowest:`);
      for (const k of [...profile].sort((a, b) => b.ms - a.ms).slice(0, opt.verbose ? profile.length : 8))
        console.log(`  ${k.name.padEnd(28)} ${String(k.op).padEnd(18)} passes ${String(k.passes ?? '-').padStart(2)}` +
                    `  ${k.ms.toFixed(2).padStart(8)} ms`);
    }
  }
  return tr && tr.status !== 'ok' ? 1 : 0;
}

for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]])
  process.on(sig, () => { log(`${sig}: stopping`); cleanup().finally(() => process.exit(code)); });

main().then(
  code => cleanup().then(() => process.exit(code)),
  err => { console.error(`run_bench.mjs: ${err.message}`); cleanup().then(() => process.exit(1)); });
