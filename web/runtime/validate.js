// Checks of model.json and params.bin before anything touches the GPU, so that a broken or
// mismatched package fails with a message naming the field, not with a wrong answer.
import { IO_DTYPES, isIoDtype } from './dtypes.js';
import { check, fail } from './errors.js';
import { numel } from './inputs.js';

export const FORMAT = 'tensorir-web';
// The newest version the exporter writes (1 when no pass has several render targets);
// the runtime reads every version up to it (version 2 added passes with several render
// targets, "outputs").
export const VERSION = 2;
const OLDEST = 1;
const MAX_OUTPUTS = 8;

const isInt = (v) => Number.isSafeInteger(v);
const isIndex = (v, n) => isInt(v) && v >= 0 && v < n;

export { numel };

// FNV-1a, 32 bits, over every byte.
export function fnv1a32(bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; ++i) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

export function hex32(v) {
  return '0x' + (v >>> 0).toString(16).padStart(8, '0');
}

function checkHeader(model, url) {
  check(model !== null && typeof model === 'object' && !Array.isArray(model),
        `${url} is not a tensorir web model (expected a JSON object)`);
  check(model.format === FORMAT,
        () => `${url} is not a tensorir web model (format is ${JSON.stringify(model.format)}, ` +
              `expected "${FORMAT}")`);
  check(isInt(model.version) && model.version >= OLDEST && model.version <= VERSION,
        () => `${url} has web package format version ${JSON.stringify(model.version)}, but this ` +
              `runtime supports versions ${OLDEST} to ${VERSION}; export the model again with ` +
              `the tensorir that ships this runtime`);
}

function checkTensor(t, what, textures) {
  check(t && typeof t.name === 'string', `model.json: ${what} has no "name"`);
  const name = `${what} "${t.name}"`;
  check(Array.isArray(t.shape) && t.shape.every((d) => isInt(d) && d >= 0),
        () => `model.json: ${name} has an invalid shape ${JSON.stringify(t.shape)}`);
  // Textures hold float32; an input or output may declare another dtype, converted when
  // uploaded or read back.
  check(what === 'parameter' ? t.dtype === 'float32' : isIoDtype(t.dtype),
        () => `model.json: ${name} has dtype ${JSON.stringify(t.dtype)}; ` +
              (what === 'parameter' ? 'parameters are float32' : `one of ${IO_DTYPES.join(', ')} was expected`));
  check(isIndex(t.texture, textures.length),
        () => `model.json: ${name} names texture ${t.texture}, but there are ${textures.length}`);
  const tex = textures[t.texture];
  check(numel(t.shape) <= tex.width * tex.height * 4,
        () => `model.json: ${name} has ${numel(t.shape)} elements, more than texture ` +
              `${t.texture} (${tex.width} x ${tex.height} RGBA) holds`);
}

function checkPass(pass, where, model, paramTextures) {
  check(pass !== null && typeof pass === 'object', () => `model.json: ${where} is not an object`);
  const nTex = model.textures.length;
  check(isIndex(pass.program, model.programs.length),
        () => `model.json: ${where} uses program ${pass.program}, but there are ` +
              `${model.programs.length}`);
  check(isIndex(pass.output, nTex),
        () => `model.json: ${where} renders into texture ${pass.output}, but there are ${nTex}`);
  check(!paramTextures.has(pass.output),
        () => `model.json: ${where} renders into texture ${pass.output}, which holds the ` +
              `parameter "${paramTextures.get(pass.output)}"`);
  const targets = [pass.output];
  if (pass.outputs !== undefined) {
    check(model.version >= 2,
          () => `model.json: ${where} has "outputs", which format version ${model.version} ` +
                `does not have (version 2 does)`);
    check(Array.isArray(pass.outputs) && pass.outputs.length >= 1 &&
              pass.outputs.length <= MAX_OUTPUTS && pass.outputs[0] === pass.output,
          () => `model.json: ${where} has "outputs" ${JSON.stringify(pass.outputs)}; expected ` +
                `1 to ${MAX_OUTPUTS} textures, the first being "output" (${pass.output})`);
    const out = model.textures[pass.output];
    pass.outputs.forEach((t, k) => {
      check(isIndex(t, nTex),
            () => `model.json: ${where} renders into texture ${t}, but there are ${nTex}`);
      check(pass.outputs.indexOf(t) === k,
            () => `model.json: ${where} renders into texture ${t} twice`);
      check(model.textures[t].width === out.width && model.textures[t].height === out.height,
            () => `model.json: ${where} renders into textures of different sizes (${t} and ` +
                  `${pass.output})`);
      check(!paramTextures.has(t),
            () => `model.json: ${where} renders into texture ${t}, which holds the ` +
                  `parameter "${paramTextures.get(t)}"`);
      if (k > 0) targets.push(t);
    });
  }
  check(Array.isArray(pass.inputs), `model.json: ${where} has no "inputs" list`);
  for (const input of pass.inputs) {
    check(input && typeof input.sampler === 'string',
          `model.json: ${where} has an input without a "sampler" name`);
    check(isIndex(input.texture, nTex),
          () => `model.json: ${where} samples texture ${input.texture} as ${input.sampler}, ` +
                `but there are ${nTex}`);
    check(!targets.includes(input.texture),
          () => `model.json: ${where} reads texture ${input.texture} (${input.sampler}) while ` +
                `rendering into it`);
  }
  check(pass.uniforms === undefined || pass.uniforms === null || Array.isArray(pass.uniforms),
        () => `model.json: ${where} has "uniforms" ${JSON.stringify(pass.uniforms)}; expected a list`);
  for (const u of pass.uniforms || []) {
    check(u && typeof u.name === 'string', `model.json: ${where} has a uniform without a name`);
    check(u.type === 'int' || u.type === 'float',
          () => `model.json: ${where} uniform "${u.name}" has type ${JSON.stringify(u.type)}; ` +
                `expected "int" or "float"`);
    check(typeof u.value === 'number' && Number.isFinite(u.value) &&
              (u.type === 'float' || isInt(u.value)),
          () => `model.json: ${where} uniform "${u.name}" has an invalid ${u.type} value ` +
                `${JSON.stringify(u.value)}`);
  }
}

// Throws a TensorirError on the first problem in model.json; `url` names the file in messages.
export function validateModel(model, url = 'model.json') {
  checkHeader(model, url);
  check(Array.isArray(model.textures) && model.textures.length > 0,
        'model.json: "textures" must be a non-empty list');
  model.textures.forEach((t, i) => {
    check(t && isInt(t.width) && isInt(t.height) && t.width > 0 && t.height > 0,
          () => `model.json: texture ${i} has an invalid size ${JSON.stringify(t)}`);
    check(t.format === 'RGBA32F',
          () => `model.json: texture ${i} has format ${JSON.stringify(t.format)}; only ` +
                `RGBA32F is supported`);
  });
  check(typeof model.vertex_shader === 'string', 'model.json: "vertex_shader" is missing');
  check(Array.isArray(model.programs) && model.programs.every((p) => typeof p === 'string'),
        'model.json: "programs" must be a list of GLSL sources');
  for (const key of ['inputs', 'outputs']) {
    check(Array.isArray(model[key]) && model[key].length > 0,
          `model.json: "${key}" must be a non-empty list`);
    model[key].forEach((t) => checkTensor(t, key.slice(0, -1), model.textures));
  }
  const params = model.params;
  check(params && typeof params.file === 'string', 'model.json: "params.file" is missing');
  check(isInt(params.bytes) && params.bytes >= 0, 'model.json: "params.bytes" is missing');
  check(typeof params.fnv1a32 === 'string' && /^0x[0-9a-fA-F]{8}$/.test(params.fnv1a32),
        'model.json: "params.fnv1a32" must be a hex string like "0x1234abcd"');
  check(Array.isArray(params.tensors), 'model.json: "params.tensors" must be a list');
  const paramTextures = new Map();
  for (const t of params.tensors) {
    checkTensor(t, 'parameter', model.textures);
    const end = t.offset + numel(t.shape) * 4;
    check(isInt(t.offset) && t.offset >= 0 && t.offset % 4 === 0 && end <= params.bytes,
          () => `model.json: parameter "${t.name}" at offset ${t.offset} does not lie inside ` +
                `the ${params.bytes} bytes of ${params.file} on a 4-byte boundary`);
    check(!paramTextures.has(t.texture),
          () => `model.json: parameters "${paramTextures.get(t.texture)}" and "${t.name}" share ` +
                `texture ${t.texture}`);
    paramTextures.set(t.texture, t.name);
  }
  check(Array.isArray(model.kernels), 'model.json: "kernels" must be a list');
  model.kernels.forEach((k, i) => {
    const kname = k && typeof k.name === 'string' ? k.name : `#${i}`;
    check(k && Array.isArray(k.passes) && k.passes.length > 0,
          () => `model.json: kernel ${kname} has no passes`);
    k.passes.forEach((p, j) => checkPass(p, `kernel ${kname} pass ${j}`, model, paramTextures));
  });
  const largest = Math.max(...model.textures.map((t) => Math.max(t.width, t.height)));
  check(isInt(model.max_texture_size) && model.max_texture_size >= largest,
        () => `model.json: "max_texture_size" is ${model.max_texture_size}, but texture ` +
              `sizes go up to ${largest}`);
}

// Size and checksum of params.bin against model.json.
export function validateParams(model, buffer, url) {
  validateFile(model.params, buffer, url);
}

// The size and checksum of a file of the package against model.json's entry for it
// ({bytes, fnv1a32}).
export function validateFile(entry, buffer, url) {
  const want = entry.bytes;
  if (buffer.byteLength !== want) {
    fail(`${url} is ${buffer.byteLength < want ? 'truncated' : 'too long'}: ${buffer.byteLength} bytes, ` +
         `but model.json expects ${want}; copy the whole package again (or the files come from ` +
         'different exports)');
  }
  const got = fnv1a32(new Uint8Array(buffer));
  const expected = parseInt(entry.fnv1a32, 16) >>> 0;
  if (got !== expected) {
    fail(`${url} is corrupt: its FNV-1a checksum is ${hex32(got)}, but model.json expects ` +
         `${hex32(expected)}; copy the whole package again`);
  }
}
