// Real networks exported from PyTorch (scripts/export_models.py writes the models, their
// inputs and PyTorch's outputs; bench/peers/onnxruntime_run.cjs adds ONNX Runtime's) as web
// packages: each model is compiled with `tensorir compile MODEL --target wasm|webgl`, run
// under Node ("wasm") or in headless Chromium ("webgl") on the exported inputs, and its
// output compared with PyTorch's and ONNX Runtime's: max |got - want| / max |want| <= 1e-3.
// Prints a table (model, target, error against each reference, pass/fail, times) and fails
// when a model does not compile, does not run or is off.
//
//   node real_models_test.mjs MODELS_DIR --tensorir BIN [--targets wasm,webgl] [--cases SUBSTR]
//        [--work DIR] [--reuse] [--chromium PATH]
//   (MODELS_DIR holds manifest.tsv; --work, default MODELS_DIR/web, receives the packages;
//    --reuse keeps a package already compiled there)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { importPlaywright, launchBrowser } from './browser.mjs';
import { readNpy } from './npy.mjs';
import { startServer } from './static_server.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (flag, fallback) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const flag = (name) => {
  const at = args.indexOf(name);
  if (at >= 0) args.splice(at, 1);
  return at >= 0;
};
const tensorirBin = option('--tensorir', null);
const targets = option('--targets', 'wasm,webgl').split(/[ ,]+/).filter((t) => t);
const only = option('--cases', process.env.TENSORIR_MODELS_CASES || '');
const chromiumPath = option('--chromium', process.env.CHROMIUM || '/usr/bin/chromium');
const reuse = flag('--reuse');
const modelsDir = args[0] && resolve(args[0]);
const workDir = resolve(option('--work', modelsDir ? join(modelsDir, 'web') : ''));
const TOLERANCE = 1e-3;
const RUN_TIMEOUT_S = 900;

if (!modelsDir || !tensorirBin) {
  console.error('usage: node real_models_test.mjs MODELS_DIR --tensorir BIN [--targets wasm,webgl] ' +
                '[--cases SUBSTR] [--work DIR] [--reuse] [--chromium PATH]');
  process.exit(2);
}
for (const t of targets) {
  if (t !== 'wasm' && t !== 'webgl') {
    console.error(`--targets: "${t}" is not a web target (wasm, webgl)`);
    process.exit(2);
  }
}
if (!existsSync(join(modelsDir, 'manifest.tsv'))) {
  console.error(`${modelsDir} has no manifest.tsv: run scripts/export_models.py --out ${modelsDir} first`);
  process.exit(1);
}

// manifest.tsv: name, output, then NAME=FILE.npy per input.
const cases = readFileSync(join(modelsDir, 'manifest.tsv'), 'utf8').split('\n').filter((l) => l.trim())
  .map((line) => {
    const [name, output, ...ins] = line.split('\t');
    return { name, output, inputs: ins.map((s) => s.split('=')) };
  }).filter((c) => c.name.includes(only));

// max |got - want| / max |want|; Infinity for a NaN or a length mismatch.
function relativeError(got, want) {
  if (got.length !== want.length) return Infinity;
  let diff = 0, scale = 0;
  for (let i = 0; i < want.length; ++i) {
    const d = Math.abs(got[i] - want[i]);
    diff = Number.isNaN(d) ? Infinity : Math.max(diff, d);
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return scale > 0 ? diff / scale : Infinity;
}

// Loads a package and runs it once on inputs fetched as raw bytes ({name, url, dtype}),
// in Node or in the page: every output by name, with the load and run times.
async function runPackage({ runtimeUrl, modelUrl, inputs, backend }) {
  const ARRAYS = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, bool: Uint8Array, uint8: Uint8Array };
  const tensorir = await import(runtimeUrl);
  const t0 = performance.now();
  const model = await tensorir.load({ modelUrl, backend, threads: 1 });
  const loadMs = performance.now() - t0;
  try {
    const feed = {};
    for (const input of inputs) {
      const r = await fetch(input.url);
      if (!r.ok) throw new Error(`input ${input.name}: HTTP ${r.status}`);
      feed[input.name] = new ARRAYS[input.dtype](await r.arrayBuffer());
    }
    const t1 = performance.now();
    const out = await model.run(feed);
    const runMs = performance.now() - t1;
    const outputs = {};
    for (const o of model.outputs) outputs[o.name] = { shape: [...o.shape], data: Array.from(out[o.name], Number) };
    return { loadMs, runMs, outputs };
  } finally {
    model.dispose();
  }
}

function withTimeout(promise, what) {
  let handle;
  const timer = new Promise((_, reject) => {
    handle = setTimeout(() => reject(new Error(`${what} did not finish within ${RUN_TIMEOUT_S} s`)), RUN_TIMEOUT_S * 1000);
  });
  return Promise.race([promise, timer]).finally(() => clearTimeout(handle));
}

function compile(c, target, dir) {
  if (reuse && existsSync(join(dir, 'model.json'))) return { ms: 0 };
  rmSync(dir, { recursive: true, force: true });
  const t0 = performance.now();
  const r = spawnSync(tensorirBin, ['compile', join(modelsDir, `${c.name}.onnx`), '--target', target, '-o', dir],
                      { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.error) throw new Error(`cannot run ${tensorirBin}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`tensorir compile failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`);
  return { ms: performance.now() - t0 };
}

mkdirSync(workDir, { recursive: true });
const server = await startServer([['/work/', workDir], ['/runtime/', join(repoRoot, 'web/runtime')]]);
let session = null, page = null;
const rows = [];
try {
  for (const target of targets) {
    for (const c of cases) {
      const row = { model: c.name, target, torch: NaN, ort: NaN, status: 'FAIL', reason: '', compileS: 0, loadMs: 0, runMs: 0 };
      rows.push(row);
      try {
        const dir = join(workDir, `${c.name}.${target}`);
        row.compileS = compile(c, target, dir).ms / 1000;
        // The inputs as raw bytes next to the package, for the page to fetch.
        const inputs = c.inputs.map(([name, file]) => {
          const npy = readNpy(join(modelsDir, file));
          const bytes = Buffer.from(npy.data.buffer, npy.data.byteOffset, npy.data.byteLength);
          writeFileSync(join(dir, `input.${name}.bin`), bytes);
          return { name, dtype: npy.dtype, url: `${server.url}/work/${c.name}.${target}/input.${name}.bin` };
        });
        const arg = { runtimeUrl: `${server.url}/runtime/tensorir.js`, modelUrl: `${server.url}/work/${c.name}.${target}/model.json`,
                      inputs, backend: target };
        let got;
        if (target === 'wasm') {
          got = await withTimeout(runPackage({ ...arg, runtimeUrl: pathToFileURL(join(repoRoot, 'web/runtime/tensorir.js')).href }),
                                  `${c.name} on wasm`);
        } else {
          if (!page) {
            session = await launchBrowser(await importPlaywright(repoRoot), { executable: chromiumPath, swiftshader: false });
            page = await (await session.browser.newContext()).newPage();
            await page.goto(`${server.url}/work/`);
          }
          got = await withTimeout(page.evaluate(runPackage, arg), `${c.name} on webgl`);
        }
        Object.assign(row, { loadMs: got.loadMs, runMs: got.runMs });
        const out = got.outputs[c.output] || Object.values(got.outputs)[0];
        const ref = (kind) => {
          const file = join(modelsDir, `${c.name}.${kind}.npy`);
          return existsSync(file) ? readNpy(file).data : null;
        };
        const [torch, ort] = [ref('torch'), ref('ort')];
        row.torch = torch ? relativeError(out.data, torch) : NaN;
        row.ort = ort ? relativeError(out.data, ort) : NaN;
        const errors = [row.torch, row.ort].filter((e) => !Number.isNaN(e));
        if (!errors.length) row.reason = 'no reference output';
        else if (errors.every((e) => e <= TOLERANCE)) row.status = 'pass';
        else if (torch && ort && !(relativeError(ort, torch) <= TOLERANCE)) {
          row.reason = `the references disagree: ONNX Runtime's output is ${relativeError(ort, torch).toExponential(2)} ` +
                       'off PyTorch\'s (export the model and run bench/peers/onnxruntime_run.cjs again)';
        } else row.reason = `off by more than ${TOLERANCE}`;
      } catch (e) {
        row.reason = e.message.split('\n')[0];
      }
      const fmt = (e) => (Number.isNaN(e) ? '-' : e.toExponential(2));
      console.log(`${row.model.padEnd(34)} ${target.padEnd(6)} torch ${fmt(row.torch).padStart(9)}  ort ` +
                  `${fmt(row.ort).padStart(9)}  ${row.status.padEnd(4)}  compile ${row.compileS.toFixed(1)} s, load ` +
                  `${(row.loadMs / 1000).toFixed(1)} s, run ${row.runMs.toFixed(0)} ms${row.reason ? `  ${row.reason}` : ''}`);
    }
  }
} catch (e) {
  console.error(`FAIL  ${e.message}`);
  process.exitCode = 1;
} finally {
  if (session) await session.close();
  await server.close();
}

const failed = rows.filter((r) => r.status !== 'pass');
console.log(`\n${rows.length - failed.length} of ${rows.length} model runs within ${TOLERANCE} of PyTorch and ONNX Runtime`);
if (failed.length) {
  console.error(`FAIL  ${failed.map((r) => `${r.model} on ${r.target}`).join(', ')}`);
  process.exitCode = 1;
}
