// The engines of the web bench. Each one takes the same NCHW Float32Array and gives the
// output as a Float32Array; the time of run() covers upload, inference and read-back.

import {loadPackage} from './package.js';
import {buildTfjsModel} from './tfjs_model.js';

const NM = '/node_modules';

// The project's own runtime, from the package (tensorir/tensorir.js): the "webgl" package
// at cfg.pkg, or the "wasm" one at cfg.wasmPkg (with cfg.threads threads).
async function tensorirPackage(pkg, options) {
  const mod = await import(`${pkg}/tensorir/tensorir.js`);
  const api = typeof mod.load === 'function' ? mod : mod.default;
  if (!api || typeof api.load !== 'function') throw new Error('tensorir/tensorir.js exports no load()');
  const model = await api.load({modelUrl: `${pkg}/model.json`, ...options});
  const meta = await (await fetch(`${pkg}/model.json`)).json();
  const inName = meta.inputs[0].name, outName = meta.outputs[0].name;
  const pick = r => {
    if (r instanceof Float32Array) return r;
    let v = r && (r[outName] ?? (r instanceof Map ? r.get(outName) : undefined));
    if (v === undefined && r && typeof r === 'object') v = Object.values(r)[0];
    if (v && !(v instanceof Float32Array) && v.data instanceof Float32Array) v = v.data;
    if (!(v instanceof Float32Array)) throw new Error('model.run() gave no Float32Array output');
    return v;
  };
  const wasm = meta.format === 'tensorir-wasm';
  return {
    backend: wasm ? 'wasm' : 'webgl',
    info: wasm ? {target: meta.target, kernels: meta.kernels.length, threads: model.threads}
               : {target: meta.target, kernels: meta.kernels.length, textures: meta.textures.length},
    run: async x => pick(await model.run({[inName]: x})),
    // The median of 5 passes over the kernels, each kernel timed alone.
    profile: () => (typeof model.profile === 'function' ? model.profile(undefined, 5) : null),
  };
}

function tensorir(cfg) {
  return tensorirPackage(cfg.pkg, {});
}

function tensorirWasm(cfg) {
  return tensorirPackage(cfg.wasmPkg, {threads: cfg.threads});
}

// The same network built with run_bench.mjs --tuning-log.
function tensorirTuned(cfg) {
  return tensorirPackage(cfg.tunedPkg, {});
}

function tensorirWasmTuned(cfg) {
  return tensorirPackage(cfg.tunedWasmPkg, {threads: cfg.threads});
}

async function tfjsWebgl(cfg) {
  const tf = await import(`${NM}/@tensorflow/tfjs/dist/tf.fesm.min.js`);
  if (!(await tf.setBackend('webgl'))) throw new Error('TF.js could not start its webgl backend');
  await tf.ready();
  const pkg = await loadPackage(cfg.peerPkg);
  const model = buildTfjsModel(tf, pkg);
  const env = tf.env();
  return {
    backend: 'webgl',
    version: tf.version.tfjs,
    info: {webgl_version: env.getNumber('WEBGL_VERSION'), float32: env.getBool('WEBGL_RENDER_FLOAT32_ENABLED'),
           packed: env.getBool('WEBGL_PACK')},
    run: x => model.run(x),
  };
}

async function ortSession(ort, cfg, ep, options = {}) {
  if (cfg.onnxError) throw new Error(cfg.onnxError);
  const bytes = new Uint8Array(await (await fetch(cfg.onnx)).arrayBuffer());
  const s = await ort.InferenceSession.create(bytes, {executionProviders: [ep], graphOptimizationLevel: 'all', ...options});
  const shape = cfg.inputShape;
  return {
    version: ort.env.versions ? ort.env.versions.common : '',
    run: async x => {
      const r = await s.run({[s.inputNames[0]]: new ort.Tensor('float32', x, shape)});
      const t = r[s.outputNames[0]];
      return t.location && t.location !== 'cpu' ? await t.getData() : t.data;
    },
  };
}

async function ortWasm(cfg) {
  const ort = await import(`${NM}/onnxruntime-web/dist/ort.wasm.min.mjs`);
  ort.env.wasm.wasmPaths = `${NM}/onnxruntime-web/dist/`;
  ort.env.wasm.numThreads = crossOriginIsolated ? cfg.threads : 1;
  ort.env.wasm.proxy = false;
  const e = await ortSession(ort, cfg, 'wasm');
  return {...e, backend: 'wasm', info: {threads: ort.env.wasm.numThreads, simd: ort.env.wasm.simd !== false}};
}

async function ortWebgl(cfg) {
  const ort = await import(`${NM}/onnxruntime-web/dist/ort.webgl.min.mjs`);
  const e = await ortSession(ort, cfg, 'webgl');
  return {...e, backend: 'webgl', info: {pack: !!ort.env.webgl.pack}};
}

export const ENGINES = {
  'tensorir': tensorir,
  'tensorir-wasm': tensorirWasm,
  'tensorir-tuned': tensorirTuned,
  'tensorir-wasm-tuned': tensorirWasmTuned,
  'tfjs-webgl': tfjsWebgl,
  'onnxruntime-web-wasm': ortWasm,
  'onnxruntime-web-webgl': ortWebgl,
};
