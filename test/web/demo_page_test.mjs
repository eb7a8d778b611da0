// The demo page (web/index.html) with any package: it must list every input and output,
// run on seeded random inputs of each dtype and show every output. Each package directory
// is opened in headless Chromium (each build of a package holding both, through
// ?backend=); a package with demo_expected.json (tensorir_web_packages --demo: float32,
// bool and int64 inputs and outputs) must also show the values the "llvm" build computes
// for the page's seeded inputs, for every output.
//
//   node demo_page_test.mjs PACKAGE_DIR... [--chromium PATH]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { importPlaywright, launchBrowser } from './browser.mjs';
import { startServer } from './static_server.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const at = args.indexOf('--chromium');
const chromiumPath = at >= 0 ? args.splice(at, 2)[1] : (process.env.CHROMIUM || '/usr/bin/chromium');
if (!args.length) {
  console.error('usage: node demo_page_test.mjs PACKAGE_DIR... [--chromium PATH]');
  process.exit(2);
}

// The builds to open: each of an index package, else the package itself.
function builds(dir) {
  const json = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
  if (json.format !== 'tensorir-index') return [{ backend: null, model: json }];
  return json.packages.map((p) => ({ backend: p.backend, model: JSON.parse(readFileSync(join(dir, p.model), 'utf8')) }));
}

// The typed array run() gives for each dtype.
const ARRAYS = { float32: 'Float32Array', int32: 'Int32Array', int64: 'BigInt64Array', bool: 'Uint8Array' };

async function checkPage(page, url, model, expected) {
  await page.goto(url);
  await page.waitForFunction(() => ['ready', 'error'].includes(window.tensorirStatus), null, { timeout: 0, polling: 100 });
  const r = await page.evaluate(() => ({
    status: window.tensorirStatus,
    error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
    rows: [...document.querySelectorAll('#tensors tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
    shown: document.querySelectorAll('#outputs .output').length,
    result: window.tensorirResult,
    lastRun: document.getElementById('last-run').textContent,
  }));
  if (r.status !== 'ready') throw new Error(`status ${r.status}: ${r.error}`);
  const want = [...model.inputs.map((t) => ['input', t]), ...model.outputs.map((t) => ['output', t])]
    .map(([kind, t]) => [kind, t.name, `[${t.shape.join(', ')}]`, t.dtype]);
  if (JSON.stringify(r.rows) !== JSON.stringify(want)) {
    throw new Error(`the tensor table shows ${JSON.stringify(r.rows)}, want ${JSON.stringify(want)}`);
  }
  if (r.shown !== model.outputs.length) throw new Error(`${r.shown} outputs shown of ${model.outputs.length}`);
  if (!/last run [\d.]+ ms/.test(r.lastRun)) throw new Error(`no run time shown: "${r.lastRun}"`);
  for (const [name, values] of Object.entries(expected ? expected.outputs : {})) {
    const got = r.result.outputs[name];
    if (!got) throw new Error(`output ${name} is not shown`);
    const dtype = model.outputs.find((t) => t.name === name).dtype;
    if (got.array !== ARRAYS[dtype]) throw new Error(`output ${name} (${dtype}) came as a ${got.array}, want a ${ARRAYS[dtype]}`);
    if (!values.length) {
      if (got.first.length) throw new Error(`output ${name} starts ${got.first}, want no values`);
      continue;
    }
    const first = values.slice(0, got.first.length);
    const worst = Math.max(...first.map((v, i) => Math.abs(v - got.first[i])));
    if (!(worst <= 1e-5)) throw new Error(`output ${name} starts ${got.first}, want ${first}`);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    if (!(Math.abs(got.stats.mean - mean) <= 1e-5)) throw new Error(`output ${name}: mean ${got.stats.mean}, want ${mean}`);
  }
  return `${model.inputs.map((t) => t.dtype).join('/')} inputs, ${r.shown} output(s) shown, ${r.lastRun}`;
}

const server = await startServer([]);
let session = null, failed = 0;
try {
  session = await launchBrowser(await importPlaywright(repoRoot), { executable: chromiumPath, swiftshader: false });
  const page = await (await session.browser.newContext()).newPage();
  for (const [i, raw] of args.entries()) {
    const dir = resolve(raw);
    server.mount(`/pkg/${i}/`, dir);
    const expectedFile = join(dir, 'demo_expected.json');
    const expected = existsSync(expectedFile) ? JSON.parse(readFileSync(expectedFile, 'utf8')) : null;
    for (const b of builds(dir)) {
      const label = `${dir}${b.backend ? ` (${b.backend})` : ''}`;
      try {
        const url = `${server.url}/pkg/${i}/index.html?runs=1${b.backend ? `&backend=${b.backend}` : ''}`;
        console.log(`PASS  ${label}: ${await checkPage(page, url, b.model, expected)}`);
      } catch (e) {
        ++failed;
        console.error(`FAIL  ${label}: ${e.message.split('\n')[0]}`);
      }
    }
  }
} catch (e) {
  ++failed;
  console.error(`FAIL  ${e.message}`);
} finally {
  if (session) await session.close();
  await server.close();
}
if (failed) process.exitCode = 1;
