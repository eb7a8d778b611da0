// Page side of the web bench: run_bench.mjs calls these through page.evaluate.
import {ENGINES} from './engines.js';

const loaded = new Map();  // engine name -> engine
let input = null;

function gpuInfo() {
  const c = document.createElement('canvas');
  const gl = c.getContext('webgl2');
  if (!gl) return {webgl2: false};
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  const info = {
    webgl2: true,
    renderer: ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
    max_texture_size: gl.getParameter(gl.MAX_TEXTURE_SIZE),
    color_buffer_float: !!gl.getExtension('EXT_color_buffer_float'),
  };
  const lose = gl.getExtension('WEBGL_lose_context');
  if (lose) lose.loseContext();
  return info;
}

window.benchSetup = async cfg => {
  input = new Float32Array(await (await fetch(cfg.input)).arrayBuffer());
  const engines = [];
  for (const name of cfg.engines) {
    const t0 = performance.now();
    try {
      const e = await ENGINES[name](cfg);
      loaded.set(name, e);
      engines.push({name, ok: true, backend: e.backend, version: e.version || '', info: e.info || {},
                    load_ms: performance.now() - t0});
    } catch (err) {
      engines.push({name, ok: false, error: String(err && err.stack ? err.message : err)});
    }
  }
  return {engines, env: {userAgent: navigator.userAgent, crossOriginIsolated, cores: navigator.hardwareConcurrency,
                         gpu: gpuInfo()}};
};

// One timed run; the output comes back only when asked (1000 floats, for the check).
window.benchRun = async (name, wantOutput) => {
  const e = loaded.get(name);
  try {
    const t0 = performance.now();
    const out = await e.run(input);
    const ms = performance.now() - t0;
    return {ms, out: wantOutput ? Array.from(out) : undefined};
  } catch (err) {
    return {error: String(err && err.message ? err.message : err)};
  }
};

window.benchProfile = async name => {
  const e = loaded.get(name);
  try { return e && e.profile ? JSON.parse(JSON.stringify((await e.profile()) ?? null)) : null; } catch { return null; }
};

window.benchReady = true;
