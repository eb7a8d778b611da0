// Functions that run inside the browser page (page.evaluate serialises them, so each one is
// self-contained). They import the package's runtime from its URL like a user's page would.

// Runs the model on test_input.bin and compares with test_expected.bin; times load and runs.
export async function runPackage({ runtimeUrl, modelUrl, inputUrl, expectedUrl, inputName,
                                   outputName, repeats, seed }) {
  const tensorir = await import(runtimeUrl);
  const floats = async (url) => {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return new Float32Array(await r.arrayBuffer());
  };
  const [input, expected] = await Promise.all([floats(inputUrl), floats(expectedUrl)]);
  let t0 = performance.now();
  const model = await tensorir.load(modelUrl);
  const loadMs = performance.now() - t0;
  try {
    const pick = (list, name, what) => {
      if (name) return name;
      if (list.length === 1) return list[0].name;
      throw new Error(`test.json names no ${what} and the model has ${list.length}`);
    };
    const inName = pick(model.inputs, inputName, 'input');
    const outName = pick(model.outputs, outputName, 'output');
    const feed = { [inName]: input };
    t0 = performance.now();
    const out = await model.run(feed);
    const firstMs = performance.now() - t0;
    const got = out[outName];
    if (!got) throw new Error(`the model has no output "${outName}"`);
    if (got.length !== expected.length) {
      throw new Error(`output "${outName}" has ${got.length} values, test_expected.bin ` +
                      `${expected.length}`);
    }
    let maxAbs = 0, maxRef = 0, nonFinite = 0, worst = 0;
    for (let i = 0; i < got.length; ++i) {
      if (!Number.isFinite(got[i])) { ++nonFinite; continue; }
      const d = Math.abs(got[i] - expected[i]);
      if (d > maxAbs) { maxAbs = d; worst = i; }
      maxRef = Math.max(maxRef, Math.abs(expected[i]));
    }
    const runs = [];
    for (let r = 0; r < repeats; ++r) {
      t0 = performance.now();
      await model.run(feed);
      runs.push(performance.now() - t0);
    }
    // A second run must give the same answer: textures shared between values are rewritten.
    const again = (await model.run(feed))[outName];
    let rerunDiff = 0;
    for (let i = 0; i < got.length; ++i) rerunDiff = Math.max(rerunDiff, Math.abs(again[i] - got[i]));
    let randomMismatch = null;
    if (seed !== null && seed !== undefined) {
      const mine = new Uint32Array(tensorir.randomFloat32(input.length, seed).buffer);
      const theirs = new Uint32Array(input.buffer);
      randomMismatch = mine.findIndex((v, i) => v !== theirs[i]);
    }
    return { loadMs, firstMs, runs, maxAbs, maxRef, nonFinite, worst, got: got[worst],
             want: expected[worst], rerunDiff, randomMismatch, info: model.info() };
  } finally {
    model.dispose();
  }
}

// load() must reject; returns the message (or null when it resolved).
export async function loadError({ runtimeUrl, modelUrl }) {
  const tensorir = await import(runtimeUrl);
  try {
    const model = await tensorir.load(modelUrl);
    model.dispose();
    return null;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}

// run() with a wrong input name and with a wrong length must reject.
export async function runErrors({ runtimeUrl, modelUrl }) {
  const tensorir = await import(runtimeUrl);
  const model = await tensorir.load(modelUrl);
  const reasons = [];
  try {
    const t = model.inputs[0];
    const n = t.shape.reduce((a, b) => a * b, 1);
    for (const feed of [{ [t.name + '_wrong']: new Float32Array(n) },
                        { [t.name]: new Float32Array(n + 1) }]) {
      try {
        await model.run(feed);
        reasons.push(null);
      } catch (e) {
        reasons.push(e.message);
      }
    }
    // The GPU context lost (as after a driver reset), forced through WEBGL_lose_context: a
    // run must refuse rather than hand out what a lost context reads back.
    const lose = model.ctx && model.ctx.gl.getExtension('WEBGL_lose_context');
    if (!lose) {
      reasons.push('no WEBGL_lose_context to test with');
    } else {
      lose.loseContext();
      try {
        await model.run({ [t.name]: new Float32Array(n) });
        reasons.push(null);
      } catch (e) {
        reasons.push(e.message);
      }
    }
  } finally {
    model.dispose();
  }
  return reasons;
}

// Browser capability fakes installed before any page script runs.
export const FAKES = {
  noWebGL2: `{
    const get = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
      return type === 'webgl2' ? null : get.call(this, type, ...rest);
    };
  }`,
  noFloatTarget: `{
    const get = WebGL2RenderingContext.prototype.getExtension;
    WebGL2RenderingContext.prototype.getExtension = function (name) {
      return name === 'EXT_color_buffer_float' ? null : get.call(this, name);
    };
  }`,
  smallTextures: `{
    const get = WebGL2RenderingContext.prototype.getParameter;
    WebGL2RenderingContext.prototype.getParameter = function (p) {
      return p === this.MAX_TEXTURE_SIZE ? 1 : get.call(this, p);
    };
  }`,
};
