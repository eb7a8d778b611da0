// model.json and params.bin checks of the JS runtime, under Node (no browser): every
// malformed file is a TensorirError that says what is wrong, never a TypeError.
import { TensorirError } from '../../web/runtime/errors.js';
import { validateModel, validateParams } from '../../web/runtime/validate.js';
import { tinyPackage } from './make_tiny_package.mjs';

const cases = [
  ['a kernel pass that is null', (m) => { m.kernels[0].passes[0] = null; }, /pass 0 is not an object/],
  ['a kernel that is null', (m) => { m.kernels[1] = null; }, /has no passes/],
  ['another version', (m) => { m.version = 999; }, /version/],
  ['another format', (m) => { m.format = 'onnx'; }, /not a tensorir web model/],
  ['a texture index out of range', (m) => { m.kernels[0].passes[0].output = 99; }, /texture 99/],
  ['a parameter past the end of params.bin', (m) => { m.params.tensors[0].offset = 4096; }, /does not lie inside/],
  ['"outputs" in a version 1 package', (m) => { withOutputs(m); m.version = 1; }, /version 1 does not have/],
  ['"outputs" not starting with "output"', (m) => { withOutputs(m).outputs.reverse(); }, /the first being "output"/],
  ['"outputs" naming a texture twice', (m) => { const p = withOutputs(m); p.outputs[1] = p.output; }, /twice/],
  ['"outputs" of different sizes', (m) => { const p = withOutputs(m); m.textures[p.outputs[1]].width += 1; },
   /different sizes/],
  ['"outputs" naming a parameter\'s texture', (m) => { withOutputs(m).outputs[1] = paramTexture(m); },
   /different sizes|parameter/],
  ['"outputs" past the texture list', (m) => { withOutputs(m).outputs[1] = 99; }, /texture 99/],
  ['"uniforms" that are not a list', (m) => { m.kernels[0].passes[0].uniforms = {}; },
   /"uniforms" \{\}; expected a list/],
  ['a pass reading one of its "outputs"', (m) => { const p = withOutputs(m); p.inputs[0].texture = p.outputs[1]; },
   /while rendering into it/],
];

// Version 2, the first pass rendering into a second texture of its output's size (a new one).
function withOutputs(m) {
  m.version = 2;
  const pass = m.kernels[0].passes[0];
  m.textures.push({ ...m.textures[pass.output] });
  pass.outputs = [pass.output, m.textures.length - 1];
  return pass;
}
function paramTexture(m) {
  return m.params.tensors[0].texture;
}

let failed = 0;
const expectError = (what, fn, pattern) => {
  try {
    fn();
    console.log(`FAIL  ${what}: accepted`);
    failed++;
  } catch (e) {
    const ok = e instanceof TensorirError && pattern.test(e.message);
    console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}: ${e.constructor.name}: ${e.message}`);
    if (!ok) failed++;
  }
};

const { model, params } = tinyPackage();
validateModel(structuredClone(model));  // the intact package passes
{
  // ... and so does a version 2 package with a pass rendering into two textures.
  const m = structuredClone(model);
  withOutputs(m);
  validateModel(m);
}
validateParams(model, params.buffer, 'params.bin');
for (const [what, edit, pattern] of cases) {
  const m = structuredClone(model);
  edit(m);
  expectError(what, () => validateModel(m), pattern);
}
expectError('a truncated params.bin', () => validateParams(model, params.buffer.slice(0, 8), 'params.bin'),
            /truncated/);
const flipped = new Uint8Array(params.slice(0));
flipped[3] ^= 0x40;
expectError('a corrupt params.bin', () => validateParams(model, flipped.buffer, 'params.bin'), /corrupt/);
if (failed) {
  console.log(`${failed} validation check(s) failed`);
  process.exit(1);
}
console.log('all validation checks passed');
