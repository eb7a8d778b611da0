// WebAssembly packages in headless Chromium with worker threads: each package run with 1
// and with 3 threads must give the same output bit for bit (every parallel iteration
// writes its own part of the result) and match the "llvm" build; a page that is not
// cross-origin isolated runs on one thread by default and refuses more with a clear error.
//
// A worker killed while idle must not stop the others: the next run gives the same output.
//
// With --errors DIR (tensorir_wasm_error_package's output), a kernel that fails on worker
// threads only: its error must come back from the worker with the kernel's message.
//
// With --index DIR (tensorir_web_packages --target webgl+wasm): on llvmpipe, a software
// rasterizer, load() must choose the WebAssembly build, and load({backend: 'webgl'}) must
// run the WebGL2 one; both against the "llvm" build.
//
//   node wasm_threads_test.mjs PACKAGES_DIR [--errors DIR] [--index DIR] [--chromium PATH]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { importPlaywright, launchBrowser } from './browser.mjs';
import { startServer } from './static_server.mjs';

const args = process.argv.slice(2);
const option = (name) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : null);
const dir = args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1].startsWith('--')));
const executable = option('--chromium') || '/usr/bin/chromium';
const errorsDir = option('--errors');
const indexDir = option('--index');
const runtimeDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/runtime');
if (!dir || !existsSync(dir)) {
  console.error('usage: node wasm_threads_test.mjs PACKAGES_DIR [--chromium PATH]');
  process.exit(2);
}
const packages = readdirSync(dir).filter((n) => existsSync(join(dir, n, 'model.json'))).sort();

// In the page: the package's output for test_input.bin with each thread count.
async function runThreads({ base, input, output, threadCounts }) {
  const tensorir = await import(`${base}tensorir/tensorir.js`);
  const data = new Float32Array(await (await fetch(`${base}test_input.bin`)).arrayBuffer());
  const expected = new Float32Array(await (await fetch(`${base}test_expected.bin`)).arrayBuffer());
  const results = [];
  for (const threads of threadCounts) {
    const model = await tensorir.load({ modelUrl: `${base}model.json`, threads });
    const got = (await model.run({ [input]: data }))[output];
    let maxAbs = 0, maxRef = 0;
    for (let i = 0; i < expected.length; ++i) {
      maxAbs = Math.max(maxAbs, Math.abs(got[i] - expected[i]));
      maxRef = Math.max(maxRef, Math.abs(expected[i]));
    }
    results.push({ threads: model.threads, rel: maxRef > 0 ? maxAbs / maxRef : maxAbs, got: Array.from(got),
                   workerIterations: model.info().workerIterations });
    model.dispose();
  }
  return { isolated: crossOriginIsolated, results };
}

// The worker_oom package on 1 thread (right answer) and on 3 (the worker's error); a run
// in which no worker happened to take an iteration is tried again.
async function workerError({ runtime, base }) {
  const tensorir = await import(runtime);
  const meta = await (await fetch(`${base}model.json`)).json();
  const x = new Float32Array(16).fill(2);
  const one = await tensorir.load({ modelUrl: `${base}model.json`, threads: 1 });
  const y = (await one.run({ x })).y;
  one.dispose();
  const right = y.every((v) => v === meta.expected);
  const model = await tensorir.load({ modelUrl: `${base}model.json`, threads: 3 });
  try {
    for (let attempt = 0; attempt < 5; ++attempt) {
      try {
        await model.run({ x });
      } catch (e) {
        return { right, error: `${e.name}: ${e.message}`, after: await model.run({ x: new Float32Array(16) }).then(
          () => 'ran', (e2) => e2.message) };
      }
    }
    return { right, error: null };
  } finally {
    model.dispose();
  }
}

// An isolated page whose engine refuses shared memory (a small 32-bit device): by default
// the model runs on one thread and says why; asked for threads, load() fails.
async function noSharedMemory({ base }) {
  const Memory = WebAssembly.Memory;
  WebAssembly.Memory = function (desc) {
    if (desc && desc.shared) throw new RangeError('out of address space');
    return new Memory(desc);
  };
  try {
    const tensorir = await import(`${base}tensorir/tensorir.js`);
    const model = await tensorir.load(`${base}model.json`);
    const result = { threads: model.threads, threadError: model.threadError };
    model.dispose();
    try {
      await tensorir.load({ modelUrl: `${base}model.json`, threads: 2 });
    } catch (e) {
      result.explicit = `${e.name}: ${e.message}`;
    }
    return result;
  } finally {
    WebAssembly.Memory = Memory;
  }
}

// The default choice and the WebGL2 build of an index package, each against the answer.
async function chooseBuild({ base, input, output }) {
  const tensorir = await import(`${base}tensorir/tensorir.js`);
  const data = new Float32Array(await (await fetch(`${base}test_input.bin`)).arrayBuffer());
  const expected = new Float32Array(await (await fetch(`${base}test_expected.bin`)).arrayBuffer());
  const results = [];
  for (const backend of [undefined, 'webgl']) {
    const model = await tensorir.load({ modelUrl: `${base}model.json`, backend });
    const got = (await model.run({ [input]: data }))[output];
    let maxAbs = 0, maxRef = 0;
    for (let i = 0; i < expected.length; ++i) {
      maxAbs = Math.max(maxAbs, Math.abs(got[i] - expected[i]));
      maxRef = Math.max(maxRef, Math.abs(expected[i]));
    }
    results.push({ backend: model.backend, choice: model.choice, rel: maxAbs / maxRef });
    model.dispose();
  }
  return results;
}

// A WebGL2 that calls itself a hardware GPU: load() must choose the webgl build, or fall
// back to wasm when that build fails (here: no program links).
const FAKE_GPU = `{
  const get = WebGL2RenderingContext.prototype.getParameter;
  WebGL2RenderingContext.prototype.getParameter = function (p) {
    return p === 0x9246 ? 'FakeVendor FakeGPU 9000' : get.call(this, p);  // UNMASKED_RENDERER_WEBGL
  };
}`;
const FAKE_GPU_NO_LINK = `${FAKE_GPU}{
  const get = WebGL2RenderingContext.prototype.getProgramParameter;
  WebGL2RenderingContext.prototype.getProgramParameter = function (program, p) {
    return p === this.LINK_STATUS ? false : get.call(this, program, p);
  };
}`;

async function chooseOnGpu({ base }) {
  const tensorir = await import(`${base}tensorir/tensorir.js`);
  const model = await tensorir.load(`${base}model.json`);
  const r = { backend: model.backend, choice: model.choice };
  model.dispose();
  return r;
}

// load({worker: true}): the model in a worker of its own, against the answer; a bad input
// still rejects with its message, and a disposed model refuses to run.
async function inWorker({ base, input, output, backend }) {
  const tensorir = await import(`${base}tensorir/tensorir.js`);
  const data = new Float32Array(await (await fetch(`${base}test_input.bin`)).arrayBuffer());
  const expected = new Float32Array(await (await fetch(`${base}test_expected.bin`)).arrayBuffer());
  const model = await tensorir.load({ modelUrl: `${base}model.json`, worker: true, backend });
  const got = (await model.run({ [input]: data }))[output];
  let maxAbs = 0, maxRef = 0;
  for (let i = 0; i < expected.length; ++i) {
    maxAbs = Math.max(maxAbs, Math.abs(got[i] - expected[i]));
    maxRef = Math.max(maxRef, Math.abs(expected[i]));
  }
  let bad = null;
  try {
    await model.run({ nope: new Float32Array(1) });
  } catch (e) {
    bad = `${e.name}: ${e.message}`;
  }
  const info = model.info();
  await model.dispose();
  let after = null;
  try {
    await model.run({ [input]: data });
  } catch (e) {
    after = e.message;
  }
  return { rel: maxAbs / maxRef, backend: model.backend, threads: model.threads, worker: info.worker, bad, after };
}

// A worker killed while it waits for work (as a browser may kill one): the loops it never
// joins go on without it, on the other threads, to the same output.
async function deadWorker({ base, input, output }) {
  const tensorir = await import(`${base}tensorir/tensorir.js`);
  const data = new Float32Array(await (await fetch(`${base}test_input.bin`)).arrayBuffer());
  const model = await tensorir.load({ modelUrl: `${base}model.json`, threads: 3 });
  try {
    const before = (await model.run({ [input]: data }))[output];
    const pool = model.state.pool;
    pool.workers[0].terminate();
    // Chromium ends a worker's running script only some time after terminate().
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const iterations = pool.workerIterations;
    let got = null, error = null;
    try {
      got = (await model.run({ [input]: data }))[output];
    } catch (e) {
      error = e.message;
    }
    return { error, threads: model.threads, same: !!got && got.every((v, i) => Object.is(v, before[i])),
             workerIterations: pool.workerIterations - iterations };
  } finally {
    model.dispose();
  }
}

async function notIsolated({ base }) {
  const tensorir = await import(`${base}tensorir/tensorir.js`);
  const model = await tensorir.load(`${base}model.json`);
  const threads = model.threads;
  model.dispose();
  let error = null;
  try {
    await tensorir.load({ modelUrl: `${base}model.json`, threads: 2 });
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  return { isolated: crossOriginIsolated, threads, error };
}

let failed = 0;
const report = (ok, what, detail) => {
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}: ${detail}`);
  if (!ok) failed++;
};

const isolatedServer = await startServer([['/pkg/', resolve(dir)]]);
const plainServer = await startServer([['/pkg/', resolve(dir)]], { isolated: false });
const chromium = await importPlaywright(resolve(dirname(fileURLToPath(import.meta.url)), '../..'));
const browser = await launchBrowser(chromium, { executable, swiftshader: false });
try {
  for (const name of packages) {
    const test = JSON.parse(readFileSync(join(dir, name, 'test.json'), 'utf8'));
    const page = await browser.browser.newPage();
    try {
      await page.goto(`${isolatedServer.url}/pkg/${name}/model.json`);
      const r = await page.evaluate(runThreads, {
        base: `${isolatedServer.url}/pkg/${name}/`, input: test.input, output: test.output, threadCounts: [1, 3],
      });
      const [one, three] = r.results;
      const differ = one.got.findIndex((v, i) => !Object.is(v, three.got[i]));
      // ResNet-18's loops are long enough that the workers must have taken part.
      const shared = name !== 'resnet18' || three.workerIterations > 0;
      const ok = r.isolated && one.threads === 1 && three.threads === 3 && differ < 0 && shared &&
                 one.rel <= test.tolerance && three.rel <= test.tolerance;
      report(ok, `package ${name}`, `1 thread: max rel err ${one.rel.toExponential(2)}; ${three.threads} threads: ` +
             `${three.rel.toExponential(2)} (${three.workerIterations} iterations on workers); ` +
             `${differ < 0 ? 'identical' : `differ at ${differ}`}` +
             (r.isolated ? '' : '; the page is not cross-origin isolated'));
    } catch (e) {
      report(false, `package ${name}`, e.message);
    } finally {
      await page.close();
    }
  }
  if (indexDir) {
    isolatedServer.mount('/index/', resolve(indexDir));
    const names = readdirSync(indexDir).filter((n) => existsSync(join(indexDir, n, 'model.json'))).sort();
    if (!names.length) report(false, 'index packages', `none in ${indexDir}`);
    for (const name of names) {
      const test = JSON.parse(readFileSync(join(indexDir, name, 'test.json'), 'utf8'));
      const page = await browser.browser.newPage();
      try {
        await page.goto(`${isolatedServer.url}/index/${name}/model.json`);
        const [chosen, webgl] = await page.evaluate(chooseBuild, {
          base: `${isolatedServer.url}/index/${name}/`, input: test.input, output: test.output,
        });
        report(chosen.backend === 'wasm' && /software rasterizer.*llvmpipe/.test(chosen.choice.reason) &&
               webgl.backend === 'webgl' && webgl.choice.reason === 'asked for' &&
               chosen.rel <= test.tolerance && webgl.rel <= test.tolerance,
               `index package ${name}`, `chose ${chosen.backend} (${chosen.choice.reason}): max rel err ` +
               `${chosen.rel.toExponential(2)}; ${webgl.backend} asked for: ${webgl.rel.toExponential(2)}`);
      } catch (e) {
        report(false, `index package ${name}`, e.message);
      } finally {
        await page.close();
      }
    }
  }
  if (indexDir) {
    const name = readdirSync(indexDir).filter((n) => existsSync(join(indexDir, n, 'model.json'))).sort()[0];
    for (const [what, fake, check] of [
      ['a GPU', FAKE_GPU, (r) => r.backend === 'webgl' && /GPU: FakeVendor FakeGPU 9000/.test(r.choice.reason)],
      ['a GPU whose webgl build fails', FAKE_GPU_NO_LINK,
       (r) => r.backend === 'wasm' && /the webgl build failed: .*link/.test(r.choice.reason)],
    ]) {
      const page = await browser.browser.newPage();
      try {
        await page.addInitScript(fake);
        await page.goto(`${isolatedServer.url}/index/${name}/model.json`);
        const r = await page.evaluate(chooseOnGpu, { base: `${isolatedServer.url}/index/${name}/` });
        report(check(r), `index package on ${what}`, `${r.backend} (${r.choice.reason})`);
      } catch (e) {
        report(false, `index package on ${what}`, e.message);
      } finally {
        await page.close();
      }
    }
  }
  {
    const cases = [['resnet18', `${isolatedServer.url}/pkg/resnet18/`, 'wasm', undefined, dir]];
    if (indexDir) {
      const first = readdirSync(indexDir).filter((n) => existsSync(join(indexDir, n, 'model.json'))).sort()[0];
      cases.push([`${first} (webgl build)`, `${isolatedServer.url}/index/${first}/`, 'webgl', 'webgl',
                  join(indexDir, first)]);
    }
    for (const [what, base, want, backend, pkgDir] of cases) {
      const test = JSON.parse(readFileSync(join(pkgDir, what === 'resnet18' ? 'resnet18' : '', 'test.json'), 'utf8'));
      const page = await browser.browser.newPage();
      try {
        await page.goto(`${base}model.json`);
        const r = await page.evaluate(inWorker, { base, input: test.input, output: test.output, backend });
        report(r.rel <= test.tolerance && r.backend === want && r.worker === true &&
               /TensorirError: .*has no input "nope"/.test(r.bad || '') && /disposed/.test(r.after || ''),
               `${what} in a worker of its own`, `${r.backend}, ${r.threads} thread(s), max rel err ` +
               `${r.rel.toExponential(2)}; bad input: ${r.bad}; after dispose: ${r.after}`);
      } catch (e) {
        report(false, `${what} in a worker of its own`, e.message);
      } finally {
        await page.close();
      }
    }
  }
  if (packages.includes('resnet18')) {
    const test = JSON.parse(readFileSync(join(dir, 'resnet18', 'test.json'), 'utf8'));
    const page = await browser.browser.newPage();
    try {
      await page.goto(`${isolatedServer.url}/pkg/resnet18/model.json`);
      const r = await page.evaluate(deadWorker, { base: `${isolatedServer.url}/pkg/resnet18/`, input: test.input,
                                                  output: test.output });
      report(!r.error && r.same && r.threads === 3 && r.workerIterations > 0, 'a worker killed while idle',
             r.error ? `the next run failed: ${r.error}` : `the next run: ${r.same ? 'identical' : 'different'} ` +
             `output, ${r.workerIterations} iterations on the other workers, ${r.threads} threads`);
    } catch (e) {
      report(false, 'a worker killed while idle', e.message);
    } finally {
      await page.close();
    }
  } else {
    report(false, 'a worker killed while idle', `no resnet18 package in ${dir}`);
  }
  if (errorsDir) {
    isolatedServer.mount('/errors/', resolve(errorsDir));
    isolatedServer.mount('/runtime/', runtimeDir);
    const page = await browser.browser.newPage();
    try {
      await page.goto(`${isolatedServer.url}/errors/worker_oom/model.json`);
      const r = await page.evaluate(workerError, {
        runtime: `${isolatedServer.url}/runtime/tensorir.js`, base: `${isolatedServer.url}/errors/worker_oom/`,
      });
      const pattern = /TensorirError: .*kernel rows failed: in a worker thread: out of memory allocating temporary buffer 'scratch'.*32 MiB/;
      report(r.right && pattern.test(r.error || '') && /in a worker thread/.test(r.after),
             'an error in a worker thread', `1 thread right: ${r.right}; 3 threads: ${r.error}; the next run: ${r.after}`);
    } finally {
      await page.close();
    }
  }
  {
    const page = await browser.browser.newPage();
    try {
      const small = packages.find((n) => n !== 'resnet18') || packages[0];
      await page.goto(`${isolatedServer.url}/pkg/${small}/model.json`);
      const r = await page.evaluate(noSharedMemory, { base: `${isolatedServer.url}/pkg/${small}/` });
      report(r.threads === 1 && /shared memory.*out of address space/.test(r.threadError || '') &&
             /TensorirError: .*shared memory \(for worker threads\) cannot be allocated/.test(r.explicit || ''),
             'no shared memory to be had', `default: ${r.threads} thread (${r.threadError}); two threads: ${r.explicit}`);
    } finally {
      await page.close();
    }
  }
  const page = await browser.browser.newPage();
  try {
    const small = packages.find((n) => n !== 'resnet18') || packages[0];
    await page.goto(`${plainServer.url}/pkg/${small}/model.json`);
    const r = await page.evaluate(notIsolated, { base: `${plainServer.url}/pkg/${small}/` });
    report(!r.isolated && r.threads === 1 && /TensorirError: .*cross-origin isolated/.test(r.error || ''),
           'a page that is not cross-origin isolated', `default threads ${r.threads}; two threads: ${r.error}`);
  } finally {
    await page.close();
  }
} finally {
  await browser.close();
  await isolatedServer.close();
  await plainServer.close();
}
console.log(failed ? `\n${failed} check(s) failed` : '\nall wasm thread checks passed');
process.exit(failed ? 1 : 0);
