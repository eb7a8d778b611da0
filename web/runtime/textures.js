// The storage plan's textures (RGBA32F, packed four floats per texel) with their framebuffers,
// and the upload and readback of tensors in the packed layout.
import { fail } from './errors.js';

export class TextureSet {
  constructor(ctx, specs) {
    this.ctx = ctx;
    const gl = ctx.gl;
    this.specs = specs;
    this.textures = [];
    this.framebuffers = [];
    for (const spec of specs) {
      const tex = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, spec.width, spec.height);
      this.textures.push(tex);
      this.framebuffers.push(null);  // made on first use: params and inputs never need one
    }
    gl.bindTexture(gl.TEXTURE_2D, null);
    try {
      ctx.checkError(`allocating ${specs.length} textures (out of GPU memory?)`);
    } catch (e) {
      this.dispose();  // a caller's canvas keeps its context: free what was made
      throw e;
    }
  }

  // The framebuffer rendering into texture `index`, or into a list of textures at once
  // (color attachments 0, 1, ... in order).
  framebuffer(index) {
    const list = Array.isArray(index) ? index : [index];
    if (list.length > 1) return this.multiFramebuffer(list);
    const t = list[0];
    if (this.framebuffers[t]) return this.framebuffers[t];
    this.framebuffers[t] = this.makeFramebuffer(list);
    return this.framebuffers[t];
  }

  multiFramebuffer(list) {
    const key = list.join(',');
    this.multi = this.multi || new Map();
    if (!this.multi.has(key)) this.multi.set(key, this.makeFramebuffer(list));
    return this.multi.get(key);
  }

  makeFramebuffer(list) {
    const gl = this.ctx.gl;
    const fb = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
    list.forEach((t, k) => {
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + k, gl.TEXTURE_2D,
                              this.textures[t], 0);
    });
    if (list.length > 1) gl.drawBuffers(list.map((_, k) => gl.COLOR_ATTACHMENT0 + k));
    const status = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
    const spec = this.specs[list[0]];
    if (status !== gl.FRAMEBUFFER_COMPLETE) {
      gl.deleteFramebuffer(fb);
      fail(`texture${list.length > 1 ? 's' : ''} ${list.join(', ')} (${spec.width} x ` +
           `${spec.height} RGBA32F) cannot be rendered into (framebuffer status ` +
           `0x${status.toString(16)})`);
    }
    return fb;
  }

  // Writes `data` (the tensor's elements; zeros follow) into texture `index`. Whole rows come
  // straight from `data`; only the last, partial row is copied into a zero-padded buffer.
  upload(index, data) {
    const gl = this.ctx.gl;
    const { width, height } = this.specs[index];
    const rowFloats = width * 4;
    if (data.length > rowFloats * height) {
      fail(`${data.length} values do not fit texture ${index} (${width} x ${height} RGBA)`);
    }
    gl.bindTexture(gl.TEXTURE_2D, this.textures[index]);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    const fullRows = Math.floor(data.length / rowFloats);
    if (fullRows > 0) {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, width, fullRows, gl.RGBA, gl.FLOAT, data, 0);
    }
    if (fullRows < height) {
      // The rest of the texture is zero, so that padding never holds stale values.
      const rest = new Float32Array((height - fullRows) * rowFloats);
      rest.set(data.subarray(fullRows * rowFloats));
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, fullRows, width, height - fullRows, gl.RGBA,
                       gl.FLOAT, rest, 0);
    }
    gl.bindTexture(gl.TEXTURE_2D, null);
  }

  // The first `count` floats of texture `index`, reading only the rows that hold them.
  read(index, count) {
    const gl = this.ctx.gl;
    const { width } = this.specs[index];
    const rows = Math.max(1, Math.ceil(count / (width * 4)));
    const out = new Float32Array(rows * width * 4);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, this.framebuffer(index));
    gl.readBuffer(gl.COLOR_ATTACHMENT0);
    gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    gl.readPixels(0, 0, width, rows, gl.RGBA, gl.FLOAT, out);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
    return out.length === count ? out : out.slice(0, count);
  }

  // Blocks until the GPU has finished all work on texture `index`: reading one texel back is
  // the one wait WebGL guarantees (gl.finish alone may return early).
  sync(index) {
    const gl = this.ctx.gl;
    gl.finish();
    const texel = new Float32Array(4);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, this.framebuffer(index));
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, texel);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
  }

  dispose() {
    const gl = this.ctx.gl;
    for (const fb of this.framebuffers) if (fb) gl.deleteFramebuffer(fb);
    for (const fb of (this.multi || new Map()).values()) gl.deleteFramebuffer(fb);
    this.multi = null;
    for (const tex of this.textures) gl.deleteTexture(tex);
    this.textures = [];
    this.framebuffers = [];
  }
}
