// load({worker: true}): the model lives in a worker of its own (model_worker.js), so that
// loading and running it never block the page's thread. The same API, every call async;
// inputs are copied to the worker and outputs move back without a copy.
import { TensorirError, check } from './errors.js';
import { randomInputsFor } from './model_base.js';

export class RemoteModel {
  // `options` are load()'s, with an absolute modelUrl.
  static async create(options) {
    check(typeof Worker !== 'undefined', 'load({worker: true}) needs Web Workers, which this environment lacks');
    check(!options.canvas, 'load({worker: true}) renders on a canvas of the worker\'s own; leave out "canvas"');
    const model = new RemoteModel(new Worker(new URL('./model_worker.js', import.meta.url), { type: 'module' }));
    try {
      const { info, ...described } = await model.call('load', { ...options, worker: undefined });
      Object.assign(model, described);
      model.info_ = info;
    } catch (e) {
      model.worker.terminate();
      throw e;
    }
    return model;
  }

  constructor(worker) {
    this.worker = worker;
    this.pending = new Map();
    this.next = 0;
    this.disposed = false;
    worker.onmessage = (ev) => {
      const { id, ok, result, message } = ev.data;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (ok) p.resolve(result);
      else p.reject(new TensorirError(message.replace(/^tensorir: /, '')));
    };
    worker.onerror = (ev) => {
      const e = new TensorirError(`the model worker failed: ${ev.message || 'it could not start'}`);
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
  }

  call(op, args = {}, transfer = []) {
    if (this.disposed) return Promise.reject(new TensorirError(`model ${this.name} was disposed; load it again`));
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }

  run(inputs) {
    return this.call('run', { inputs });
  }

  profile(inputs, repeats = 1) {
    return this.call('profile', { inputs, repeats });
  }

  randomInputs(seed = 0) {
    return randomInputsFor(this.inputs, seed);
  }

  // What the model said when it was loaded (renderer, threads, ...).
  info() {
    return { ...this.info_, worker: true };
  }

  async dispose() {
    if (this.disposed) return;
    try {
      await this.call('dispose');
    } finally {
      this.disposed = true;
      this.worker.terminate();
    }
  }
}
