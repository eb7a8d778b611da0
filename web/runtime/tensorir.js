// tensorir web runtime: runs a network exported as a tensorir web package, with WebGL2
// (packages built for "webgl") or WebAssembly (packages built for "wasm").
//
//   import * as tensorir from './tensorir/tensorir.js';
//   const model = await tensorir.load('model.json');
//   const out = await model.run({data: new Float32Array(1 * 3 * 224 * 224)});  // {name: Float32Array}
//   const kernels = await model.profile();   // [{name, node, op, fused, passes, ms}]
//   model.dispose();
import { INDEX_FORMAT, chooseBackend, validateIndex } from './choose.js';
import { RemoteModel } from './remote_model.js';
import { Context } from './context.js';
import { TensorirError, check, fail } from './errors.js';
import { Model } from './executor.js';
import { fetchBytes, fetchJson } from './fetch.js';
import { FORMAT, VERSION, validateFile, validateModel, validateParams } from './validate.js';
import { WasmModel } from './wasm_model.js';
import { WASM_FORMAT, validateWasmModel } from './wasm_validate.js';

export { TensorirError } from './errors.js';
export { randomFloat32, randomIntegers } from './random.js';
export { fnv1a32 } from './validate.js';
export { FORMAT, VERSION };
export { WASM_FORMAT, WASM_VERSION } from './wasm_validate.js';

function resolve(url, base) {
  return new URL(url, base).href;
}

function pageBase() {
  return typeof location !== 'undefined' ? location.href : undefined;
}

// load('model.json') or load({modelUrl, paramsUrl?, canvas?, threads?, backend?, worker?});
// paramsUrl defaults to the model.json's "params.file" next to it; threads (WebAssembly
// packages) defaults to every core in a cross-origin isolated page, else 1; backend
// ("webgl" or "wasm") picks the build of a package that holds several, which otherwise
// load() chooses (model.choice says which and why); worker: true loads and runs the model
// in a worker of its own, off the page's thread (every call then resolves asynchronously).
// Resolves to a Model; rejects with a TensorirError.
export async function load(source) {
  const options = typeof source === 'string' || source instanceof URL ? { modelUrl: source } : source;
  if (!options || !options.modelUrl) {
    fail('load() takes the URL of a model.json, or {modelUrl, paramsUrl, canvas, threads, backend, worker}');
  }
  const modelUrl = resolve(String(options.modelUrl), pageBase());
  if (options.worker) {
    const paramsUrl = options.paramsUrl ? resolve(String(options.paramsUrl), pageBase()) : undefined;
    return RemoteModel.create({ ...options, modelUrl, paramsUrl });
  }
  const json = await fetchJson(modelUrl);
  if (json !== null && typeof json === 'object' && json.format === INDEX_FORMAT) {
    check(!options.fromIndex, `${modelUrl} is a package index inside a package index`);
    validateIndex(json, modelUrl);
    const { entry, reason } = chooseBackend(json, options.backend, modelUrl);
    const build = (e) => load({ ...options, modelUrl: resolve(e.model, modelUrl), backend: undefined, fromIndex: true });
    let model;
    try {
      model = await build(entry);
      model.choice = { backend: entry.backend, reason };
    } catch (e) {
      // A GPU that fails the WebGL2 build (a driver's shader compiler, a limit) still has
      // the CPU: unless the caller chose, the WebAssembly build takes over.
      const wasm = json.packages.find((p) => p.backend === 'wasm');
      if (options.backend !== undefined || entry.backend !== 'webgl' || !wasm) throw e;
      model = await build(wasm);
      model.choice = { backend: 'wasm', reason: `the webgl build failed: ${e.message}` };
    }
    return model;
  }
  if (options.backend !== undefined) {
    const has = json && json.format === WASM_FORMAT ? 'wasm' : 'webgl';
    check(options.backend === has, `load(): ${modelUrl} is a ${has} package; it has no ${options.backend} build`);
  }
  if (json !== null && typeof json === 'object' && json.format === WASM_FORMAT) {
    return loadWasm(json, modelUrl, options);
  }
  try {
    validateModel(json, modelUrl);
  } catch (e) {
    // A shape the checks did not foresee (null where an object belongs) is still the file's fault.
    throw e instanceof TensorirError ? e : new TensorirError(`${modelUrl} is malformed: ${e.message}`, { cause: e });
  }
  const paramsUrl = options.paramsUrl ? resolve(String(options.paramsUrl), pageBase())
                                      : resolve(json.params.file, modelUrl);
  // The context is made while params.bin downloads; a missing WebGL2 fails without waiting.
  const paramsPromise = fetchBytes(paramsUrl);
  let ctx;
  try {
    ctx = new Context(options.canvas);
  } catch (e) {
    paramsPromise.catch(() => {});
    throw e;
  }
  let model;
  try {
    const params = await paramsPromise;
    validateParams(json, params, paramsUrl);
    model = new Model(ctx, json, params);
  } catch (e) {
    ctx.dispose();
    throw e instanceof TensorirError ? e : new TensorirError(`loading ${modelUrl}: ${e.message}`, { cause: e });
  }
  model.url = modelUrl;
  return model;
}

// A WebAssembly package: model.wasm and params.bin fetched side by side, both checked
// against model.json before the module is compiled.
async function loadWasm(json, modelUrl, options) {
  try {
    validateWasmModel(json, modelUrl);
  } catch (e) {
    throw e instanceof TensorirError ? e : new TensorirError(`${modelUrl} is malformed: ${e.message}`, { cause: e });
  }
  const paramsUrl = options.paramsUrl ? resolve(String(options.paramsUrl), pageBase())
                                      : resolve(json.params.file, modelUrl);
  const threads = options.threads === undefined ? WasmModel.defaultThreads() : options.threads;
  check(Number.isSafeInteger(threads) && threads >= 1, `load(): threads must be a whole number >= 1, got ${threads}`);
  if (threads > 1) {
    check(typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated && typeof Worker !== 'undefined',
          `load(): ${threads} threads need worker threads with shared memory, which a page has only when it is ` +
          'cross-origin isolated (served with Cross-Origin-Opener-Policy: same-origin and ' +
          'Cross-Origin-Embedder-Policy: require-corp); serve it so, or load with {threads: 1}');
  }
  const paramsPromise = fetchBytes(paramsUrl);
  paramsPromise.catch(() => {});  // reported where it is awaited
  const create = async (n) => {
    const module = n > 1 ? json.threaded_module : json.module;
    const wasmUrl = resolve(module.file, modelUrl);
    const wasm = await fetchBytes(wasmUrl);
    validateFile(module, wasm, wasmUrl);
    const params = await paramsPromise;
    validateFile(json.params, params, paramsUrl);
    // Threads the caller did not ask for are not worth failing over.
    return WasmModel.create(json, wasm, params, wasmUrl, n, options.threads !== undefined);
  };
  let model;
  try {
    try {
      model = await create(threads);
    } catch (e) {
      if (!(e && e.sharedMemory && options.threads === undefined)) throw e;
      model = await create(1);  // no shared memory to be had: one thread
      model.state.threadError = e.message;
    }
  } catch (e) {
    throw e instanceof TensorirError ? e : new TensorirError(`loading ${modelUrl}: ${e.message}`, { cause: e });
  }
  model.url = modelUrl;
  return model;
}
