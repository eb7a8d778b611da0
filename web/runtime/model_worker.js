// The worker behind load({worker: true}) (remote_model.js): loads the model here, off the
// page's thread, and answers the page's calls. WebGL2 packages render on an OffscreenCanvas;
// WebAssembly packages start their own worker threads from here.
import * as tensorir from './tensorir.js';

let model = null;

function describe(m) {
  return {
    name: m.name, inputs: m.inputs, outputs: m.outputs, backend: m.backend, choice: m.choice,
    threads: m.threads || 1, threadError: m.threadError || null, url: m.url, info: m.info(),
  };
}

async function perform(op, args) {
  if (op === 'load') {
    model = await tensorir.load(args);
    return describe(model);
  }
  if (!model) throw new tensorir.TensorirError('the model worker holds no model');
  if (op === 'run') return model.run(args.inputs);
  if (op === 'profile') return model.profile(args.inputs, args.repeats);
  if (op === 'info') return model.info();
  if (op === 'dispose') {
    model.dispose();
    model = null;
    return null;
  }
  throw new tensorir.TensorirError(`the model worker has no operation ${op}`);
}

self.onmessage = async (ev) => {
  const { id, op, args } = ev.data;
  try {
    const result = await perform(op, args);
    // Outputs move to the page without a copy.
    const transfer = op === 'run' ? Object.values(result).map((a) => a.buffer) : [];
    self.postMessage({ id, ok: true, result }, transfer);
  } catch (e) {
    self.postMessage({ id, ok: false, message: e && e.message ? e.message : String(e),
                       tensorir: e instanceof tensorir.TensorirError });
  }
};
