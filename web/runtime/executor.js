// A loaded model: textures allocated and filled with the parameters, programs compiled, every
// pass resolved to GL objects once, so that run() is only uploads, draws and readbacks.
import { asFloat32, fromFloat32 } from './dtypes.js';
import { check } from './errors.js';
import { checkInputs, numel } from './inputs.js';
import { ModelBase } from './model_base.js';
import { ProgramSet } from './programs.js';
import { TextureSet } from './textures.js';

export class Model extends ModelBase {
  constructor(ctx, json, params) {
    super(json);
    this.backend = 'webgl';
    this.ctx = ctx;
    const gl = ctx.gl;
    const largest = json.max_texture_size;
    check(largest <= ctx.maxTextureSize,
          `the model needs textures of up to ${largest} texels a side, but this GPU's ` +
          `MAX_TEXTURE_SIZE is ${ctx.maxTextureSize}`);
    // Before any shader compiles: one declaring more outputs than the GPU has draw buffers
    // would fail to compile with a log that does not say so.
    this.checkLimits();
    try {
      this.textures = new TextureSet(ctx, json.textures);
      for (const t of json.params.tensors) {
        this.textures.upload(t.texture, new Float32Array(params, t.offset, numel(t.shape)));
      }
      ctx.checkError('uploading the parameters');
      const names = json.programs.map((_, i) => {
        const k = json.kernels.find((kk) => kk.passes.some((p) => p.program === i));
        return k ? k.name : 'unused';
      });
      this.programs = new ProgramSet(ctx, json.vertex_shader, json.programs, names);
      this.kernels = json.kernels.map((k) => this.resolveKernel(k));
      this.vao = gl.createVertexArray();
      ctx.checkError('preparing the kernels');
    } catch (e) {
      this.dispose();
      throw e;
    }
  }

  // Texture units and draw buffers every pass needs, against what this GPU has.
  checkLimits() {
    for (const k of this.json.kernels) {
      k.passes.forEach((p, j) => {
        check(p.inputs.length <= this.ctx.maxTextureUnits,
              `kernel ${k.name} pass ${j} samples ${p.inputs.length} textures, but this GPU has ` +
              `${this.ctx.maxTextureUnits} texture units`);
        const outputs = (p.outputs || [p.output]).length;
        const most = this.ctx.maxDrawBuffers;
        check(outputs <= most,
              () => `kernel ${k.name} pass ${j} renders into ${outputs} textures at once, ` +
                    `but this GPU allows ${most} (MAX_DRAW_BUFFERS); export the model for target ` +
                    `"webgl -draw-buffers=${2 ** Math.floor(Math.log2(most))}"`);
      });
    }
  }

  resolveKernel(k) {
    const passes = k.passes.map((p) => {
      const spec = this.json.textures[p.output];
      const outputs = p.outputs || [p.output];
      return {
        program: this.programs.programs[p.program],
        framebuffer: this.textures.framebuffer(outputs),
        output: p.output,
        width: spec.width,
        height: spec.height,
        samplers: p.inputs.map((input, unit) => ({
          unit, texture: this.textures.textures[input.texture],
          location: this.programs.location(p.program, input.sampler),
        })),
        uniforms: (p.uniforms || []).map((u) => ({
          type: u.type, value: u.value, location: this.programs.location(p.program, u.name),
        })),
      };
    });
    const node = k.node || k.name;
    const fused = k.fused && k.fused.length ? k.fused : [node];
    return { name: k.name, node, op: k.op || '', fused, passes };
  }

  checkUsable() {
    super.checkUsable();
    this.ctx.checkAlive();
  }

  uploadInputs(inputs) {
    const data = checkInputs(this.json.inputs, inputs, this.name);
    this.json.inputs.forEach((t, i) => this.textures.upload(t.texture, asFloat32(data[i], `input "${t.name}"`)));
    this.ctx.checkError('uploading the inputs');
  }

  beginDraws() {
    const gl = this.ctx.gl;
    for (const cap of [gl.BLEND, gl.DEPTH_TEST, gl.STENCIL_TEST, gl.SCISSOR_TEST, gl.CULL_FACE,
                       gl.DITHER]) {
      gl.disable(cap);
    }
    gl.colorMask(true, true, true, true);
    gl.bindVertexArray(this.vao);
  }

  drawKernel(kernel) {
    const gl = this.ctx.gl;
    for (const pass of kernel.passes) {
      gl.bindFramebuffer(gl.FRAMEBUFFER, pass.framebuffer);
      gl.viewport(0, 0, pass.width, pass.height);
      gl.useProgram(pass.program);
      for (const s of pass.samplers) {
        gl.activeTexture(gl.TEXTURE0 + s.unit);
        gl.bindTexture(gl.TEXTURE_2D, s.texture);
        gl.uniform1i(s.location, s.unit);
      }
      for (const u of pass.uniforms) {
        if (u.type === 'int') gl.uniform1i(u.location, u.value);
        else gl.uniform1f(u.location, u.value);
      }
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      // A texture bound for sampling must not stay bound while a later pass renders into it.
      for (const s of pass.samplers) {
        gl.activeTexture(gl.TEXTURE0 + s.unit);
        gl.bindTexture(gl.TEXTURE_2D, null);
      }
    }
  }

  endDraws() {
    const gl = this.ctx.gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.bindVertexArray(null);
    gl.useProgram(null);
  }

  readOutputs() {
    const out = {};
    for (const t of this.json.outputs) {
      out[t.name] = fromFloat32(this.textures.read(t.texture, numel(t.shape)), t.dtype || 'float32', `output "${t.name}"`);
    }
    this.ctx.checkError('reading the outputs');
    // A context lost during the draws (e.g. the browser's GPU watchdog ending a long pass)
    // reads back zeros without a GL error: never hand those out as results.
    this.ctx.checkAlive();
    return out;
  }

  runSync(inputs) {
    this.checkUsable();
    this.uploadInputs(inputs);
    this.beginDraws();
    for (const k of this.kernels) this.drawKernel(k);
    this.endDraws();
    this.ctx.checkError('running the kernels');
    return this.readOutputs();
  }

  // Per-kernel times in ms (median over `repeats` runs), with the GPU drained between kernels,
  // so they add up to more than one run() takes. Without inputs it uses randomInputs(0).
  async profile(inputs, repeats = 1) {
    this.checkUsable();
    check(Number.isSafeInteger(repeats) && repeats >= 1, 'profile() repeats must be >= 1');
    this.uploadInputs(inputs || this.randomInputs(0));
    if (this.kernels.length === 0) return [];
    const result = this.profileKernels(repeats, (time) => {
      this.beginDraws();
      this.textures.sync(this.kernels[0].passes[0].output);
      this.kernels.forEach((k, i) => time(i, () => {
        this.drawKernel(k);
        this.textures.sync(k.passes[k.passes.length - 1].output);
      }));
      this.endDraws();
    }, (k) => k.passes.length);
    this.ctx.checkError('profiling the kernels');
    this.ctx.checkAlive();
    return result;
  }

  info() {
    const j = this.json;
    return {
      name: this.name, target: j.target, kernels: j.kernels.length, programs: j.programs.length,
      textures: j.textures.length, storage: j.storage, paramsBytes: j.params.bytes,
      renderer: this.ctx.renderer, vendor: this.ctx.vendor, maxTextureSize: this.ctx.maxTextureSize,
    };
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    const gl = this.ctx.gl;
    if (this.vao) gl.deleteVertexArray(this.vao);
    if (this.programs) this.programs.dispose();
    if (this.textures) this.textures.dispose();
    this.ctx.dispose();
  }
}
