// Writes a small hand-written web package (format version 1) with known answers, so that the
// runtime and the browser tests are checked independently of the C++ exporter.
//   node test/web/make_tiny_package.mjs <out_dir>
// The model: h = relu(x + b) (one pass), y = (h * scale) + shift in two passes, where the
// first pass writes into x's texture once x is dead. Textures have different widths so that a
// wrong packed-layout index shows up as a wrong answer.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { randomFloat32 } from '../../web/runtime/random.js';
import { fnv1a32 } from '../../web/runtime/validate.js';

const here = dirname(fileURLToPath(import.meta.url));
const webDir = resolve(here, '../../web');

const SHAPE = [1, 3, 2, 5];  // shaped like an image, so the demo page takes a picture
const N = 30;
const SEED = 5;
const SCALE = 0.5;
const SHIFT = 3;
// [width, height] of textures 0..4: x (later the temporary), b, h, y.
const TEXTURES = [[3, 3], [4, 2], [5, 2], [2, 4]];

const vertex = `#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}`;

// Element e of a packed texture: texel e / 4, channel e % 4. Each fragment writes the four
// elements of its texel; those past the tensor's end are zero.
function program(outWidth, decls, expr) {
  return `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
uniform int n;
${decls}
out vec4 out_color;
float load(sampler2D t, int e) {
  int w = textureSize(t, 0).x;
  int texel = e / 4;
  return texelFetch(t, ivec2(texel % w, texel / w), 0)[e % 4];
}
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int e0 = (p.y * ${outWidth} + p.x) * 4;
  vec4 r = vec4(0.0);
  for (int c = 0; c < 4; ++c) {
    int e = e0 + c;
    if (e < n) r[c] = ${expr};
  }
  out_color = r;
}
`;
}

const programs = [
  program(TEXTURES[2][0], 'uniform sampler2D t_x;\nuniform sampler2D t_b;',
          'max(load(t_x, e) + load(t_b, e), 0.0)'),
  program(TEXTURES[0][0], 'uniform sampler2D t_h;\nuniform float scale;', 'load(t_h, e) * scale'),
  program(TEXTURES[3][0], 'uniform sampler2D t_t;\nuniform int shift;', 'load(t_t, e) + float(shift)'),
];

export function tinyPackage() {
  const x = randomFloat32(N, SEED);
  const b = randomFloat32(N, 11, -0.5, 0.5);
  const h = x.map((v, i) => Math.max(Math.fround(v + b[i]), 0));
  const y = h.map((v) => Math.fround(Math.fround(v * SCALE) + SHIFT));
  const params = new Uint8Array(b.buffer.slice(0));
  const model = {
    format: 'tensorir-web', version: 1, name: 'tiny_add_relu', target: 'webgl',
    max_texture_size: 5,
    inputs: [{ name: 'x', shape: SHAPE, dtype: 'float32', texture: 0 }],
    outputs: [{ name: 'y', shape: SHAPE, dtype: 'float32', texture: 3 },
              { name: 'h', shape: SHAPE, dtype: 'float32', texture: 2 }],
    params: {
      file: 'params.bin', bytes: params.length,
      fnv1a32: '0x' + fnv1a32(params).toString(16).padStart(8, '0'),
      tensors: [{ name: 'b', shape: [N], dtype: 'float32', offset: 0, texture: 1 }],
    },
    textures: TEXTURES.map(([width, height]) => ({ width, height, format: 'RGBA32F' })),
    storage: { peak_bytes: TEXTURES.reduce((s, [w, hh]) => s + w * hh * 16, 0), naive_bytes: 0 },
    vertex_shader: vertex,
    programs,
    kernels: [
      { name: 'k0_add_relu', node: 'add', op: 'add', fused: ['add', 'relu'],
        passes: [{ program: 0, output: 2,
                   inputs: [{ sampler: 't_x', texture: 0 }, { sampler: 't_b', texture: 1 }],
                   uniforms: [{ name: 'n', type: 'int', value: N }] }] },
      { name: 'k1_scale_shift', node: 'scale', op: 'affine', fused: ['scale'],
        passes: [
          { program: 1, output: 0, inputs: [{ sampler: 't_h', texture: 2 }],
            uniforms: [{ name: 'n', type: 'int', value: N },
                       { name: 'scale', type: 'float', value: SCALE }] },
          { program: 2, output: 3, inputs: [{ sampler: 't_t', texture: 0 }],
            uniforms: [{ name: 'n', type: 'int', value: N },
                       { name: 'shift', type: 'int', value: SHIFT }] }] },
    ],
    graph: { nodes: [
      { name: 'add', op: 'add', inputs: ['x', 'b'], shape: SHAPE, dtype: 'float32', attrs: {} },
      { name: 'relu', op: 'relu', inputs: ['add'], shape: SHAPE, dtype: 'float32', attrs: {} },
      { name: 'scale', op: 'affine', inputs: ['relu'], shape: SHAPE, dtype: 'float32',
        attrs: { scale: SCALE, shift: SHIFT } }] },
  };
  model.storage.naive_bytes = model.storage.peak_bytes + TEXTURES[0][0] * TEXTURES[0][1] * 16;
  return { model, params, x, y };
}

export function writeTinyPackage(dir) {
  const { model, params, x, y } = tinyPackage();
  mkdirSync(join(dir, 'tensorir'), { recursive: true });
  writeFileSync(join(dir, 'model.json'), JSON.stringify(model, null, 1));
  writeFileSync(join(dir, 'params.bin'), params);
  writeFileSync(join(dir, 'test_input.bin'), new Uint8Array(x.buffer));
  writeFileSync(join(dir, 'test_expected.bin'), new Uint8Array(y.buffer));
  writeFileSync(join(dir, 'test.json'), JSON.stringify({
    input: 'x', output: 'y', tolerance: 1e-6, seed: SEED,
    description: 'hand-written package: y = relu(x + b) * 0.5 + 3, three passes, one shared texture',
  }, null, 1));
  for (const f of readdirSync(join(webDir, 'runtime'))) {
    if (f.endsWith('.js')) copyFileSync(join(webDir, 'runtime', f), join(dir, 'tensorir', f));
  }
  copyFileSync(join(webDir, 'index.html'), join(dir, 'index.html'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.length !== 3) {
    console.error('usage: node test/web/make_tiny_package.mjs <out_dir>');
    process.exit(2);
  }
  writeTinyPackage(process.argv[2]);
  console.log(`tiny package written to ${process.argv[2]}`);
}
