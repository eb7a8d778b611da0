// Runs tensorir web packages in headless Chromium and checks their answers and their errors.
//   node test/web/browser_test.mjs [options] <package_dir>...
// Each package directory holds model.json, params.bin, tensorir/*.js, index.html and the test
// files described in the web format notes (test.json, test_input.bin, test_expected.bin).
// Exits non-zero, with the reason, when anything fails.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync,
         writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { importPlaywright, launchBrowser } from './browser.mjs';
import { writeTinyPackage } from './make_tiny_package.mjs';
import { FAKES, loadError, runErrors, runPackage } from './page_checks.mjs';
import { startServer } from './static_server.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// A GPU with the 4 draw buffers WebGL2 guarantees (and no more).
const FOUR_DRAW_BUFFERS = `{
  const get = WebGL2RenderingContext.prototype.getParameter;
  WebGL2RenderingContext.prototype.getParameter = function (p) {
    return p === this.MAX_DRAW_BUFFERS || p === this.MAX_COLOR_ATTACHMENTS ? 4 : get.call(this, p);
  };
}`;

const USAGE = `usage: node test/web/browser_test.mjs [options] <package_dir>...
  (a directory without model.json stands for the packages in its subdirectories)
  --tiny              also test a hand-written package (generated into a temporary directory)
  --swiftshader       Chromium's default SwiftShader WebGL instead of Mesa llvmpipe
  --chromium PATH     the browser (default $CHROMIUM or /usr/bin/chromium)
  --runtime DIR       serve DIR as every package's tensorir/ (default: the package's own copy)
  --screenshot PATH   save a screenshot of the demo page (index.html of the first package)
  --repeats N         timed runs per package (default 3)
  --timeout S         limit for each package and each check, in seconds (default 300)
  --no-errors         skip the error cases
  --no-page           skip the demo page check
  --skip NAME         leave out the package with this model name (repeatable)`;

function parseArgs(argv) {
  const o = { packages: [], tiny: false, swiftshader: false, repeats: 3, timeout: 300,
              chromium: process.env.CHROMIUM || '/usr/bin/chromium', runtime: null,
              screenshot: null, errors: true, page: true, skip: [] };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value\n${USAGE}`);
      return argv[++i];
    };
    if (a === '--tiny') o.tiny = true;
    else if (a === '--swiftshader') o.swiftshader = true;
    else if (a === '--chromium') o.chromium = value();
    else if (a === '--runtime') o.runtime = resolve(value());
    else if (a === '--screenshot') o.screenshot = resolve(value());
    else if (a === '--repeats') o.repeats = Number(value());
    else if (a === '--timeout') o.timeout = Number(value());
    else if (a === '--no-errors') o.errors = false;
    else if (a === '--no-page') o.page = false;
    else if (a === '--skip') o.skip.push(value());
    else if (a === '--help' || a === '-h') { console.log(USAGE); process.exit(0); }
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}\n${USAGE}`);
    else o.packages.push(resolve(a));
  }
  if (!Number.isInteger(o.repeats) || o.repeats < 1) throw new Error('--repeats must be >= 1');
  if (!(o.timeout > 0)) throw new Error('--timeout must be > 0');
  return o;
}

function withTimeout(promise, seconds, what) {
  let handle;
  const timer = new Promise((_, reject) => {
    handle = setTimeout(() => reject(new Error(`${what} did not finish within ${seconds} s`)),
                        seconds * 1000);
  });
  return Promise.race([promise, timer]).finally(() => clearTimeout(handle));
}

// A 24-bit BMP (a colour gradient), which browsers decode without any library.
function bmpImage(width, height) {
  const row = Math.ceil((width * 3) / 4) * 4;
  const buf = Buffer.alloc(54 + row * height);
  buf.write('BM', 0);
  buf.writeUInt32LE(buf.length, 2);
  buf.writeUInt32LE(54, 10);
  buf.writeUInt32LE(40, 14);
  buf.writeInt32LE(width, 18);
  buf.writeInt32LE(height, 22);
  buf.writeUInt16LE(1, 26);
  buf.writeUInt16LE(24, 28);
  buf.writeUInt32LE(row * height, 34);
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const o = 54 + y * row + x * 3;
      buf[o] = (x * 255) / width;  // blue, green, red
      buf[o + 1] = (y * 255) / height;
      buf[o + 2] = 200;
    }
  }
  return buf;
}

const fmt = (x) => (x === 0 ? '0' : x.toExponential(1));
const ms = (x) => `${x >= 100 ? x.toFixed(0) : x.toFixed(1)} ms`;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// A directory of packages (no model.json, subdirectories with one) stands for all of them.
function expandDir(dir) {
  if (!existsSync(dir)) throw new Error(`${dir} does not exist`);
  if (existsSync(join(dir, 'model.json'))) return [dir];
  const subs = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'model.json')))
      .map((e) => join(dir, e.name)).sort();
  if (!subs.length) throw new Error(`${dir} holds no package (no model.json in it or below it)`);
  return subs;
}

function readPackage(dir) {
  for (const f of ['model.json', 'params.bin', 'index.html', 'tensorir/tensorir.js', 'test.json',
                   'test_input.bin', 'test_expected.bin']) {
    if (!existsSync(join(dir, f))) throw new Error(`${dir} is not a complete package: no ${f}`);
  }
  const model = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
  const test = JSON.parse(readFileSync(join(dir, 'test.json'), 'utf8'));
  if (!(test.tolerance >= 0)) throw new Error(`${dir}/test.json has no "tolerance"`);
  return { dir, model, test, name: model.name || basename(dir) };
}

class Session {
  constructor(options, server, browser) {
    this.o = options;
    this.server = server;
    this.browser = browser;
    this.mounts = 0;
    this.failures = [];
  }

  // Serves `dir` under a fresh URL prefix; returns the prefix URL (ending in '/').
  mount(dir) {
    const prefix = `/p${this.mounts++}/`;
    this.server.mount(prefix, dir);
    if (this.o.runtime) this.server.mount(`${prefix}tensorir/`, this.o.runtime);
    return this.server.url + prefix;
  }

  // A fresh page (own context: no shared caches or fakes), closed whatever happens.
  async withPage(what, work, initScript = null) {
    const context = await this.browser.newContext({ viewport: { width: 960, height: 900 } });
    const logs = [];
    try {
      if (initScript) await context.addInitScript(initScript);
      const page = await context.newPage();
      page.on('pageerror', (e) => logs.push(`page error: ${e.message}`));
      page.on('console', (m) => { if (m.type() === 'error') logs.push(`console: ${m.text()}`); });
      return await withTimeout(work(page), this.o.timeout, what);
    } catch (e) {
      if (logs.length) e.message += `\n  ${logs.slice(0, 5).join('\n  ')}`;
      throw e;
    } finally {
      await withTimeout(context.close(), 20, `closing the page of ${what}`).catch(() => {});
    }
  }

  async check(label, work) {
    try {
      const line = await work();
      console.log(`PASS  ${label}${line ? '  ' + line : ''}`);
    } catch (e) {
      console.log(`FAIL  ${label}: ${e.message}`);
      this.failures.push(label);
    }
  }

  // An empty page of the server's origin, from which the checks import the runtime.
  async blank(page) {
    await page.goto(`${this.server.url}/blank/`);
  }

  async testPackage(pkg) {
    const base = this.mount(pkg.dir);
    const r = await this.withPage(`package ${pkg.name}`, async (page) => {
      await this.blank(page);
      return page.evaluate(runPackage, {
        runtimeUrl: `${base}tensorir/tensorir.js`, modelUrl: `${base}model.json`,
        inputUrl: `${base}test_input.bin`, expectedUrl: `${base}test_expected.bin`,
        inputName: pkg.test.input || null, outputName: pkg.test.output || null,
        repeats: this.o.repeats, seed: pkg.test.seed ?? null,
      });
    });
    const rel = r.maxRef > 0 ? r.maxAbs / r.maxRef : r.maxAbs;
    const tol = pkg.test.tolerance;
    const line = `max rel err ${fmt(rel)} (tol ${fmt(tol)})  load ${ms(r.loadMs)}  first run ` +
                 `${ms(r.firstMs)}  run median ${ms(median(r.runs))} of ${r.runs.length}  ` +
                 `[${r.info.renderer}]`;
    const problems = [];
    if (r.nonFinite) problems.push(`${r.nonFinite} outputs are NaN or infinite`);
    if (!(rel <= tol)) problems.push(`error ${fmt(rel)} > tolerance ${fmt(tol)} (worst at ` +
                                     `element ${r.worst}: got ${r.got}, expected ${r.want})`);
    if (r.rerunDiff !== 0) problems.push(`a second run differs from the first by ${r.rerunDiff}`);
    if (r.randomMismatch !== null && r.randomMismatch !== -1) {
      problems.push(`randomFloat32(seed ${pkg.test.seed}) differs from test_input.bin at ` +
                    `element ${r.randomMismatch}`);
    }
    if (problems.length) throw new Error(`${problems.join('; ')}\n      ${line}`);
    return line + (r.randomMismatch === -1 ? '  random input matches C++' : '');
  }

  async openDemo(page, base, runs) {
    await page.goto(`${base}index.html?runs=${runs}`);
    await page.waitForFunction(() => ['ready', 'error'].includes(window.tensorirStatus), null,
                               { timeout: 0, polling: 100 });
    return page.evaluate(() => ({
      status: window.tensorirStatus,
      error: document.getElementById('error').hidden ? null
                                                     : document.getElementById('error').textContent,
      top5: document.querySelectorAll('.top5 li').length,
      outputs: document.querySelectorAll('#outputs .output').length,
      tensors: document.querySelectorAll('#tensors tbody tr').length,
      result: window.tensorirResult,
      kernels: document.querySelectorAll('#profile tbody tr').length,
      latency: window.tensorirLatency ? window.tensorirLatency.median : null,
    }));
  }

  async testDemo(pkg) {
    const base = this.mount(pkg.dir);
    return this.withPage(`demo page of ${pkg.name}`, async (page) => {
      const r = await this.openDemo(page, base, 5);
      if (r.status !== 'ready') throw new Error(`status ${r.status}: ${r.error}`);
      // Every input and output listed; a [1, N] float output as its top five, any other as
      // its first values and statistics.
      const { inputs, outputs } = pkg.model;
      if (r.tensors !== inputs.length + outputs.length) throw new Error(`the tensor table has ${r.tensors} rows`);
      if (r.outputs !== outputs.length) throw new Error(`${r.outputs} outputs shown of ${outputs.length}`);
      const scores = outputs.filter((t) => t.dtype === 'float32' && t.shape.length === 2 && t.shape[0] === 1 &&
                                           t.shape[1] >= 2);
      const want = scores.reduce((n, t) => n + Math.min(5, t.shape[1]), 0);
      if (r.top5 !== want) throw new Error(`the top-5 lists have ${r.top5} entries, want ${want}`);
      for (const t of outputs) {
        const shown = r.result.outputs[t.name];
        if (!shown || !Number.isFinite(shown.stats.mean)) throw new Error(`output ${t.name} not shown with its statistics`);
      }
      if (r.kernels !== pkg.model.kernels.length) {
        throw new Error(`the profile table has ${r.kernels} rows for ${pkg.model.kernels.length} kernels`);
      }
      let image = '';
      const s = pkg.model.inputs[0].shape;
      if (pkg.model.inputs.length === 1 && s.length === 4 && s[0] === 1 && s[1] === 3) {
        // A picked image runs through the model too (drawn at H x W, ImageNet-normalised).
        const before = await page.evaluate(() => JSON.stringify(window.tensorirResult));
        await page.setInputFiles('#file', { name: 'gradient.bmp', mimeType: 'image/bmp',
                                            buffer: bmpImage(40, 30) });
        await page.waitForFunction((b) => JSON.stringify(window.tensorirResult) !== b ||
                                          window.tensorirStatus === 'error', before,
                                   { timeout: 0, polling: 100 });
        const after = await page.evaluate(() => ({
          status: window.tensorirStatus, error: document.getElementById('error').textContent,
          note: document.getElementById('input-note').textContent,
          size: [document.getElementById('preview').width, document.getElementById('preview').height],
        }));
        if (after.status !== 'ready') throw new Error(`image input: ${after.error}`);
        if (!/image gradient\.bmp/.test(after.note) || after.size[0] !== s[3] || after.size[1] !== s[2]) {
          throw new Error(`image input not shown: ${after.note}, canvas ${after.size}`);
        }
        image = ', image input ran';
      }
      if (this.o.screenshot) await page.screenshot({ path: this.o.screenshot, fullPage: true });
      return `${r.outputs} output(s) shown, ${r.kernels} kernels profiled, latency ${ms(r.latency)}${image}` +
             (this.o.screenshot ? `, screenshot ${this.o.screenshot}` : '');
    });
  }

  // One broken package: load() must reject with `pattern` and the page must show it.
  async expectError(label, base, pattern, initScript = null) {
    await this.check(`${label} (API)`, () => this.withPage(label, async (page) => {
      await this.blank(page);
      const message = await page.evaluate(loadError, {
        runtimeUrl: `${base}tensorir/tensorir.js`, modelUrl: `${base}model.json` });
      if (message === null) throw new Error('load() resolved');
      if (!pattern.test(message)) throw new Error(`message does not match ${pattern}: ${message}`);
      return `"${message.split('\n')[0].slice(0, 150)}"`;
    }, initScript));
    await this.check(`${label} (page)`, () => this.withPage(label, async (page) => {
      const r = await this.openDemo(page, base, 1);
      if (r.status !== 'error') throw new Error(`page status is ${r.status}, not error`);
      if (!r.error || !pattern.test(r.error)) {
        throw new Error(`#error does not match ${pattern}: ${r.error}`);
      }
      return 'shown in #error';
    }, initScript));
  }

  async testErrors(pkg, scratch) {
    const variant = (name, mutate) => {
      const dir = join(scratch, name);
      cpSync(pkg.dir, dir, { recursive: true });
      mutate(dir);
      return this.mount(dir);
    };
    const editJson = (dir, edit) => {
      const file = join(dir, 'model.json');
      const json = JSON.parse(readFileSync(file, 'utf8'));
      edit(json);
      writeFileSync(file, JSON.stringify(json));
    };
    const params = (dir) => join(dir, 'params.bin');
    const cases = [
      ['truncated params.bin', (d) => {
        const b = readFileSync(params(d));
        writeFileSync(params(d), b.subarray(0, b.length >> 1));
      }, /truncated/],
      ['params.bin too long', (d) => {
        writeFileSync(params(d), Buffer.concat([readFileSync(params(d)), Buffer.alloc(8)]));
      }, /too long|size/],
      ['params.bin with a flipped byte', (d) => {
        const b = readFileSync(params(d));
        b[b.length >> 1] ^= 0x40;
        writeFileSync(params(d), b);
      }, /corrupt|checksum/],
      ['model.json version 999', (d) => editJson(d, (j) => { j.version = 999; }),
       /version 999.*versions 1 to 2\b/s],
      ['model.json of another format', (d) => editJson(d, (j) => { j.format = 'other'; }),
       /not a tensorir web model/],
      ['missing params.bin', (d) => rmSync(params(d)), /HTTP 404/],
      ['a shader that does not compile', (d) => editJson(d, (j) => {
        j.programs[j.programs.length - 1] = j.programs[j.programs.length - 1]
            .replace(/void\s+main\s*\(/, 'void main() { undefined_name = 1; }\nvoid unused(');
      }), /does not compile: .*undefined_name/s],
    ];
    for (const [label, mutate, pattern] of cases) {
      await this.expectError(label, variant(label.replace(/\W+/g, '_'), mutate), pattern);
    }
    const base = this.mount(pkg.dir);
    await this.expectError('no WebGL2', base, /WebGL2/, FAKES.noWebGL2);
    await this.expectError('no float render target', base, /EXT_color_buffer_float/,
                           FAKES.noFloatTarget);
    await this.expectError('textures above MAX_TEXTURE_SIZE', base, /MAX_TEXTURE_SIZE is 1\b/,
                           FAKES.smallTextures);
    await this.check('wrong input name and length, lost context (API)', () => this.withPage('run errors',
      async (page) => {
        await this.blank(page);
        const [name, length, lost] = await page.evaluate(runErrors, {
          runtimeUrl: `${base}tensorir/tensorir.js`, modelUrl: `${base}model.json` });
        if (!name || !/has no input/.test(name)) throw new Error(`wrong name: ${name}`);
        if (!length || !/has \d+ values/.test(length)) throw new Error(`wrong length: ${length}`);
        if (!lost || !/context was lost/.test(lost)) throw new Error(`lost context: ${lost}`);
        return `"${name}" / "${length}" / "${lost}"`;
      }));
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), 'tensorir-web-test-'));
  const cleanup = [() => rmSync(scratch, { recursive: true, force: true })];
  try {
    if (o.tiny) {
      writeTinyPackage(join(scratch, 'tiny'));
      o.packages.unshift(join(scratch, 'tiny'));
    }
    if (!o.packages.length) throw new Error(`no package given\n${USAGE}`);
    const packages = o.packages.flatMap(expandDir).map(readPackage)
        .filter((p) => !o.skip.includes(p.name));
    if (!packages.length) throw new Error('every package was skipped');
    const chromium = await importPlaywright(repoRoot);
    mkdirSync(join(scratch, 'blank'));
    writeFileSync(join(scratch, 'blank', 'index.html'),
                  '<!doctype html><title>blank</title><link rel="icon" href="data:,">');
    const server = await startServer([['/blank/', join(scratch, 'blank')]]);
    cleanup.unshift(() => server.close());
    const browser = await launchBrowser(chromium, { executable: o.chromium,
                                                    swiftshader: o.swiftshader });
    cleanup.unshift(() => browser.close());
    const s = new Session(o, server, browser.browser);
    console.log(`chromium ${browser.browser.version()} (${o.swiftshader ? 'SwiftShader' : 'ANGLE on ' +
                'EGL, Mesa llvmpipe'}), runtime ${o.runtime || "from each package's tensorir/"}`);
    for (const pkg of packages) await s.check(`package ${pkg.name}`, () => s.testPackage(pkg));
    if (o.page) await s.check(`demo page ${packages[0].name}`, () => s.testDemo(packages[0]));
    if (o.errors) {
      // The smallest package with parameters (to truncate and corrupt) keeps the copies cheap.
      const small = packages.filter((p) => p.model.params.bytes >= 8)
          .sort((a, b) => a.model.params.bytes - b.model.params.bytes)[0];
      if (!small) throw new Error('the error cases need a package with parameters');
      await s.testErrors(small, scratch);
      // A package whose passes render into more textures at once than the GPU has.
      const wide = packages.find((p) => p.model.kernels.some(
          (k) => k.passes.some((q) => (q.outputs || []).length > 4)));
      if (wide) {
        await s.expectError('more render targets than MAX_DRAW_BUFFERS', s.mount(wide.dir),
                            /MAX_DRAW_BUFFERS.*webgl -draw-buffers=4/s, FOUR_DRAW_BUFFERS);
      } else if (packages.some((p) => p.name === 'blocked_convs')) {
        s.failures.push('blocked_convs renders into no more than 4 textures at once: the ' +
                        'MAX_DRAW_BUFFERS case has no package to run');
        console.log('FAIL  blocked_convs has no pass with more than 4 outputs');
      }
    }
    if (s.failures.length) {
      console.log(`\n${s.failures.length} web check(s) failed: ${s.failures.join('; ')}`);
      return 1;
    }
    console.log('\nall web checks passed');
    return 0;
  } finally {
    for (const step of cleanup) await Promise.resolve().then(step).catch(() => {});
  }
}

main().then((code) => process.exit(code), (e) => {
  console.error(`browser_test: ${e.message}`);
  process.exit(1);
});
