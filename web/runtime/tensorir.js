// tensorir web runtime: runs a network exported as a tensorir web package with WebGL2.
//
//   import * as tensorir from './tensorir/tensorir.js';
//   const model = await tensorir.load('model.json');
//   const out = await model.run({data: new Float32Array(1 * 3 * 224 * 224)});  // {name: Float32Array}
//   const kernels = await model.profile();   // [{name, node, op, fused, passes, ms}]
//   model.dispose();
import { Context } from './context.js';
import { TensorirError, fail } from './errors.js';
import { Model } from './executor.js';
import { fetchBytes, fetchJson } from './fetch.js';
import { FORMAT, VERSION, validateModel, validateParams } from './validate.js';

export { TensorirError } from './errors.js';
export { randomFloat32 } from './random.js';
export { fnv1a32 } from './validate.js';
export { FORMAT, VERSION };

function resolve(url, base) {
  return new URL(url, base).href;
}

function pageBase() {
  return typeof location !== 'undefined' ? location.href : undefined;
}

// load('model.json') or load({modelUrl, paramsUrl?, canvas?}); paramsUrl defaults to the
// model.json's "params.file" next to it. Resolves to a Model; rejects with a TensorirError.
export async function load(source) {
  const options = typeof source === 'string' || source instanceof URL ? { modelUrl: source } : source;
  if (!options || !options.modelUrl) {
    fail('load() takes the URL of a model.json, or {modelUrl, paramsUrl, canvas}');
  }
  const modelUrl = resolve(String(options.modelUrl), pageBase());
  const json = await fetchJson(modelUrl);
  try {
    validateModel(json, modelUrl);
  } catch (e) {
    // A shape the checks did not foresee (null where an object belongs) is still the file's fault.
    throw e instanceof TensorirError ? e : new TensorirError(`${modelUrl} is malformed: ${e.message}`);
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
    throw e instanceof TensorirError ? e : new TensorirError(`loading ${modelUrl}: ${e.message}`);
  }
  model.url = modelUrl;
  return model;
}
