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
];

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
