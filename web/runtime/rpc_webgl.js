// A "webgl" module sent over RPC: the plans of Module::source("webgl-json")
// (backends/glsl/fragment/fragment_module.cpp). Each function becomes the model.json of a
// one-kernel package (one texture per plan tensor, its arguments as the inputs and
// outputs), checked by validate.js and run by executor.js's Model, as an exported model is.
import { Context } from './context.js';
import { TensorirError, check } from './errors.js';
import { Model } from './executor.js';
import { numel } from './inputs.js';
import { FORMAT, VERSION, validateModel } from './validate.js';

export const WEBGL_MODULE_FORMAT = 'tensorir-webgl-module';
const NO_PARAMS = { file: '(none)', bytes: 0, fnv1a32: '0x811c9dc5', tensors: [] };  // FNV-1a of no bytes

// The model.json of function `fn` of the module.
function functionModel(fn, vertexShader, what) {
  check(fn && typeof fn.name === 'string' && Array.isArray(fn.tensors) && Array.isArray(fn.passes),
        `${what} has a function without "name", "tensors" and "passes"`);
  check(!fn.symbolic, () => `${what}: function ${fn.name} has symbolic shapes or scalar arguments; the page ` +
                            'runs webgl functions whose shapes are all constant: build it with constant shapes');
  const tensors = fn.tensors.map((t, i) => {
    check(t && Number.isSafeInteger(t.width) && Number.isSafeInteger(t.height) && Array.isArray(t.shape),
          () => `${what}: function ${fn.name} tensor ${i} has no texture size`);
    return { name: t.name, shape: t.shape, dtype: 'float32', texture: i, arg: t.arg };
  });
  const args = (key) => fn.tensors.map((t, i) => (t[key] && t.arg >= 0 ? tensors[i] : null)).filter((t) => t);
  const names = new Set(tensors.map((t) => t.name));
  check(names.size === tensors.length, () => `${what}: function ${fn.name} has two tensors of one name`);
  return {
    format: FORMAT, version: VERSION, name: fn.name,
    max_texture_size: Math.max(1, ...fn.tensors.map((t) => Math.max(t.width, t.height))),
    inputs: args('input'), outputs: args('output'), params: NO_PARAMS,
    textures: fn.tensors.map((t) => ({ width: t.width, height: t.height, format: t.format })),
    vertex_shader: vertexShader,
    programs: fn.passes.map((p) => p && p.source),
    kernels: [{
      name: fn.name,
      passes: fn.passes.map((p, i) => ({
        program: i, output: p.output, outputs: p.outputs,
        inputs: (p.inputs || []).map((x) => ({ sampler: x && x.sampler, texture: x && x.tensor })),
        uniforms: p.uniforms,
      })),
    }],
  };
}

export class RpcWebglModule {
  // `text` the module's webgl-json, `canvas` the page's (every module shares its context).
  static create(text, canvas, what) {
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new TensorirError(`${what} is not JSON (${e.message}); send Module::source("webgl-json")`);
    }
    check(doc && doc.format === WEBGL_MODULE_FORMAT && typeof doc.vertex_shader === 'string' &&
              Array.isArray(doc.functions),
          () => `${what} is not a webgl module's plans (format ${JSON.stringify(doc && doc.format)}, expected ` +
                `"${WEBGL_MODULE_FORMAT}"); send Module::source("webgl-json") of a "webgl" module`);
    const jsons = doc.functions.map((fn) => functionModel(fn, doc.vertex_shader, what));
    for (const json of jsons) {
      try {
        validateModel(json, `${what} function ${json.name}`);
      } catch (e) {
        throw new TensorirError(`${what}: function ${json.name} has a malformed plan: ${e.message}`, { cause: e });
      }
    }
    const module = new RpcWebglModule();
    try {
      for (const json of jsons) module.functions.set(json.name, new Model(new Context(canvas), json, new ArrayBuffer(0)));
    } catch (e) {
      module.dispose();
      throw e;
    }
    return module;
  }

  constructor() {
    this.device = 'webgl';
    this.functions = new Map();  // name -> Model
  }

  // As RpcWasmModule.prepare: inputs uploaded now, outputs read back by finish().
  prepare(sig, args) {
    const model = this.functions.get(sig.name);
    check(model, () => `function ${sig.name} is not in the module's plans`);
    model.checkUsable();
    const view = (t) => {
      const a = args[t.arg];
      check(a && a.buffer && a.dtype === 'float32' && numel(a.shape) === numel(t.shape),
            () => `${sig.name}: argument ${t.arg} (${t.name}) must be a float32 array of ${numel(t.shape)} ` +
                  `elements (shape [${t.shape}])`);
      return new Float32Array(a.buffer, 0, numel(t.shape));
    };
    const inputs = Object.fromEntries(model.json.inputs.map((t) => [t.name, view(t)]));
    const outputs = model.json.outputs.map((t) => [t, view(t)]);
    model.uploadInputs(inputs);
    const kernel = model.kernels[0];
    const last = kernel.passes[kernel.passes.length - 1].output;
    return {
      run: () => {
        model.beginDraws();
        model.drawKernel(kernel);
        model.endDraws();
      },
      // gl.finish, then one texel read back: the wait WebGL guarantees (textures.js).
      drain: () => model.textures.sync(last),
      finish: () => {
        model.ctx.checkError(`running ${sig.name}`);
        const got = model.readOutputs();
        for (const [t, out] of outputs) out.set(got[t.name]);
      },
    };
  }

  dispose() {
    for (const model of this.functions.values()) model.dispose();
    this.functions.clear();
  }
}
