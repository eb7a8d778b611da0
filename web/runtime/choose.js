// Which build of a package that holds several (model.json of format "tensorir-index",
// graph::export_web_index) suits this browser: the one load({backend}) names, else WebGL2
// where a GPU renders it, else WebAssembly, which on a CPU-only machine beats WebGL2
// emulated by a software rasterizer by far.
import { check, fail } from './errors.js';

export const INDEX_FORMAT = 'tensorir-index';
const BACKENDS = ['webgl', 'wasm'];
const SOFTWARE = /swiftshader|llvmpipe|softpipe|software|basic render/i;

export function validateIndex(index, url) {
  check(index.version === 1, () => `${url} has package index version ${JSON.stringify(index.version)}, but this ` +
                                    'runtime supports version 1; export the model again with the tensorir that ' +
                                    'ships this runtime');
  check(Array.isArray(index.packages) && index.packages.length > 0, `${url}: "packages" must be a non-empty list`);
  for (const p of index.packages) {
    check(p && BACKENDS.includes(p.backend) && typeof p.model === 'string',
          () => `${url}: a package entry must give a "backend" (${BACKENDS.join(' or ')}) and a "model" path, ` +
                `not ${JSON.stringify(p)}`);
  }
}

// What WebGL2 this browser has: {renderer, software}, or {why} when it has none.
function probeWebGL2() {
  let canvas;
  try {
    if (typeof document !== 'undefined') canvas = document.createElement('canvas');
    else if (typeof OffscreenCanvas !== 'undefined') canvas = new OffscreenCanvas(1, 1);
    else return { why: 'no canvas' };
    const gl = canvas.getContext('webgl2');
    if (!gl) return { why: 'no WebGL2' };
    if (!gl.getExtension('EXT_color_buffer_float')) return { why: 'no float render targets' };
    const debug = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(debug ? debug.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    const lose = gl.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext();  // the model makes a context of its own
    return { renderer, software: SOFTWARE.test(renderer) };
  } catch (e) {
    return { why: `WebGL2 failed (${e.message})` };
  }
}

// The entry of `index` to load, with the reason: {entry, reason}.
export function chooseBackend(index, requested, url) {
  const of = (b) => index.packages.find((p) => p.backend === b);
  if (requested !== undefined) {
    const entry = of(requested);
    if (!entry) {
      fail(`${url} has no ${JSON.stringify(requested)} build; it has ` +
           `${index.packages.map((p) => p.backend).join(' and ')}`);
    }
    return { entry, reason: 'asked for' };
  }
  const webgl = of('webgl'), wasm = of('wasm');
  if (!webgl) return { entry: wasm, reason: 'the only build' };
  if (!wasm) return { entry: webgl, reason: 'the only build' };
  const gl = probeWebGL2();
  if (gl.why) return { entry: wasm, reason: gl.why };
  if (gl.software) return { entry: wasm, reason: `WebGL2 is a software rasterizer (${gl.renderer})` };
  return { entry: webgl, reason: `GPU: ${gl.renderer}` };
}
