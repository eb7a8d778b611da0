// ONNX's backend float32 node cases as web packages (written by tensorir_onnx_tests
// "[onnx_web_export]", one per case, with cases.json), run under Node ("wasm") or in
// headless Chromium, every package in one page ("webgl"), and compared with ONNX's outputs
// with ONNX's tolerances (as the C++ runners: rtol 1e-3, atol 1e-7). Prints a table by
// category and operator, writes onnx_backend_cases_<target>.json into SUMMARY_DIR, and
// fails when a case gives other numbers than ONNX's or when fewer than --min-passed pass.
//
//   node onnx_cases_test.mjs CASES_DIR --summary SUMMARY_DIR [--min-passed N] [--chromium PATH]
//     (CASES_DIR: onnx_web_cases/wasm or onnx_web_cases/webgl; its cases.json names the target)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { importPlaywright, launchBrowser } from './browser.mjs';
import { startServer } from './static_server.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (flag, fallback) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const summaryDir = option('--summary', null);
const minPassed = Number(option('--min-passed', '200'));
const chromiumPath = option('--chromium', process.env.CHROMIUM || '/usr/bin/chromium');
const dir = args[0];
if (!dir || !summaryDir) {
  console.error('usage: node onnx_cases_test.mjs CASES_DIR --summary SUMMARY_DIR [--min-passed N] [--chromium PATH]');
  process.exit(2);
}
if (!existsSync(join(dir, 'cases.json'))) {
  console.error(`${dir} has no cases.json: run tensorir_onnx_tests "[onnx_web_export]" first`);
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
const { target, rtol, atol } = manifest;

const floats = (file) => {
  const b = readFileSync(file);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

// "" when `got` matches `want` as the C++ runners' allclose, else why not.
function mismatch(got, want, shape, gotShape) {
  if (gotShape.join(',') !== shape.join(',')) return `shape [${gotShape}], want [${shape}]`;
  if (got.length !== want.length) return `${got.length} values, want ${want.length}`;
  for (let i = 0; i < want.length; ++i) {
    const g = got[i], w = want[i];
    if ((Number.isNaN(g) && Number.isNaN(w)) || g === w) continue;
    if (!(Math.abs(g - w) <= atol + rtol * Math.abs(w))) return `element ${i}: got ${g}, want ${w}`;
  }
  return '';
}

// Runs a package on every data set (in Node or, serialised, in the page): every output of
// each, in the model's order, with their names and shapes.
async function runPackage({ runtimeUrl, modelUrl, sets }) {
  const tensorir = await import(runtimeUrl);
  const model = await tensorir.load(modelUrl);
  try {
    const results = [];
    for (const set of sets) {
      const feed = {};
      for (const input of model.inputs) {
        const r = await fetch(new URL(set.inputs[input.name], modelUrl));
        if (!r.ok) throw new Error(`input ${input.name}: HTTP ${r.status}`);
        feed[input.name] = new Float32Array(await r.arrayBuffer());
      }
      const out = await model.run(feed);
      results.push(model.outputs.map((o) => Array.from(out[o.name])));
    }
    return { outputs: model.outputs.map((o) => ({ name: o.name, shape: [...o.shape] })), results };
  } finally {
    model.dispose();
  }
}

// Cases left out on a target, each with the reason; they count as unsupported.
const LEFT_OUT = {
  webgl: {
    test_gridsample_reflection_padding: 'its shader does not finish within the time limit in Chromium (ANGLE over ' +
        'llvmpipe), although the same shader runs in 0.5 s natively ("opengl -mode=fragment")',
  },
};

// A case that does not finish within this many seconds stops the run (a hung page would
// hang every case after it): the browser is closed rather than left behind.
const CASE_TIMEOUT_S = 120;
class Timeout extends Error {}
function withTimeout(promise, what) {
  let handle;
  const timer = new Promise((_, reject) => {
    handle = setTimeout(() => reject(new Timeout(`${what} did not finish within ${CASE_TIMEOUT_S} s`)),
                        CASE_TIMEOUT_S * 1000);
  });
  return Promise.race([promise, timer]).finally(() => clearTimeout(handle));
}

const server = await startServer([['/cases/', resolve(dir)], ['/runtime/', join(repoRoot, 'web/runtime')]]);
let session = null;
const started = performance.now();
const results = [];
try {
  let run;
  if (target === 'wasm') {
    run = runPackage;
  } else {
    const chromium = await importPlaywright(repoRoot);
    session = await launchBrowser(chromium, { executable: chromiumPath, swiftshader: false });
    const page = await (await session.browser.newContext()).newPage();
    await page.goto(`${server.url}/cases/`);  // any page of the server's origin
    run = (arg) => page.evaluate(runPackage, arg);
  }
  const runtimeUrl = target === 'wasm' ? pathToFileURL(join(repoRoot, 'web/runtime/tensorir.js')).href : `${server.url}/runtime/tensorir.js`;
  for (const c of manifest.cases) {
    const r = { category: c.category, name: c.name, status: 'passed', reason: '', ops: c.ops };
    results.push(r);
    if (c.status !== 'exported') {
      Object.assign(r, { status: 'unsupported', reason: c.reason });
      continue;
    }
    const leftOut = (LEFT_OUT[target] || {})[c.name];
    if (leftOut) {
      Object.assign(r, { status: 'unsupported', reason: `left out on ${target}: ${leftOut}` });
      continue;
    }
    try {
      const got = await withTimeout(
        run({ runtimeUrl, modelUrl: `${server.url}/cases/${c.name}/model.json`, sets: c.sets }), c.name);
      c.sets.forEach((set, k) => {
        if (r.reason) return;
        if (set.outputs.length !== got.outputs.length) {
          throw new Error(`${set.outputs.length} expected outputs, the package has ${got.outputs.length}`);
        }
        set.outputs.forEach((want, j) => {
          if (r.reason) return;
          const why = mismatch(got.results[k][j], floats(join(dir, c.name, want.file)), want.shape, got.outputs[j].shape);
          if (why) r.reason = `test_data_set_${k} output ${got.outputs[j].name}: ${why}`;
        });
      });
      if (r.reason) r.status = 'failed';
    } catch (e) {
      Object.assign(r, { status: 'failed', reason: e.message.split('\n')[0] });
      if (e instanceof Timeout) throw e;
    }
  }
} catch (e) {
  console.error(`FAIL  ${target}: ${e.message}`);
  process.exitCode = 1;
} finally {
  if (session) await session.close();
  await server.close();
}
const seconds = (performance.now() - started) / 1000;

// The tables and the summary, as the C++ runners print and write them.
const counts = () => ({ passed: 0, failed: 0, unsupported: 0 });
const all = counts(), byCategory = {}, byOp = {}, byReason = {};
for (const r of results) {
  all[r.status]++;
  (byCategory[r.category] ||= counts())[r.status]++;
  for (const op of r.ops) (byOp[op] ||= counts())[r.status]++;
  if (r.status === 'unsupported') byReason[r.reason] = (byReason[r.reason] || 0) + 1;
}
const pad = (s, n) => String(s).padStart(n);
const total = (c) => c.passed + c.failed + c.unsupported;
const row = (name, c) => console.log(`${name.padEnd(20)} ${pad(c.passed, 7)} ${pad(c.failed, 7)} ` +
  `${pad(c.unsupported, 12)} ${pad(total(c), 6)} ${pad((total(c) ? 100 * c.passed / total(c) : 0).toFixed(1), 6)}%`);
console.log(`\nONNX backend float32 node cases on "${target}" (rtol ${rtol}, atol ${atol})`);
console.log(`${'category'.padEnd(20)} ${pad('passed', 7)} ${pad('failed', 7)} ${pad('unsupported', 12)} ` +
            `${pad('total', 6)} ${pad('passed', 7)}`);
for (const cat of Object.keys(byCategory).sort()) row(cat, byCategory[cat]);
row('all', all);
console.log(`\nby operator (a case counts under every operator it holds)\n${'operator'.padEnd(28)} ` +
            `${pad('passed', 7)} ${pad('failed', 7)} ${pad('unsupported', 12)}`);
for (const op of Object.keys(byOp).sort()) {
  const c = byOp[op];
  console.log(`${op.padEnd(28)} ${pad(c.passed, 7)} ${pad(c.failed, 7)} ${pad(c.unsupported, 12)}`);
}
console.log('\nunsupported, by reason:');
for (const reason of Object.keys(byReason).sort()) console.log(`  ${pad(byReason[reason], 4)}  ${reason}`);
const failed = results.filter((r) => r.status === 'failed');
console.log(`\nfailed cases:${failed.length ? '' : ' none'}`);
for (const r of failed) console.log(`  ${r.category}/${r.name}: ${r.reason}`);

const categories = {};
for (const [cat, c] of Object.entries(byCategory)) {
  categories[cat] = { passed: c.passed, passed_specialized: 0, failed: c.failed, unsupported: c.unsupported };
}
const summary = join(summaryDir, `onnx_backend_cases_${target}.json`);
writeFileSync(summary, JSON.stringify({
  target, rtol, atol, categories,
  cases: results.map((r) => ({ ...r, specialized_inputs: [] })),
}, null, 2) + '\n');
console.log(`summary: ${summary}`);
console.log(`${all.passed} of ${results.length} cases passed on "${target}" in ${seconds.toFixed(1)} s`);
if (failed.length) {
  console.error(`FAIL  ${failed.length} cases give other numbers than ONNX's on "${target}"`);
  process.exitCode = 1;
}
if (all.passed < minPassed) {
  console.error(`FAIL  ${all.passed} cases passed on "${target}", fewer than ${minPassed}`);
  process.exitCode = 1;
}
