// The WebGL2 context: creation, the capabilities packages need, and context loss.
import { TensorirError, check, fail } from './errors.js';

function makeCanvas() {
  if (typeof document !== 'undefined') return document.createElement('canvas');
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(1, 1);
  fail('no canvas: this environment has neither a document nor OffscreenCanvas');
}

const ATTRIBUTES = {
  alpha: false, antialias: false, depth: false, stencil: false, premultipliedAlpha: false,
  preserveDrawingBuffer: false, powerPreference: 'high-performance',
};

export class Context {
  constructor(canvas) {
    this.owned = !canvas;  // a canvas of our own may lose its context on dispose
    this.canvas = canvas || makeCanvas();
    let gl = null;
    try {
      gl = this.canvas.getContext('webgl2', ATTRIBUTES);
    } catch (e) {
      gl = null;
    }
    check(gl, 'this browser has no WebGL2 (getContext("webgl2") failed); enable hardware ' +
              'acceleration or use a browser with WebGL2');
    check(gl.getExtension('EXT_color_buffer_float'),
          'this browser cannot render into float textures (WebGL2 extension ' +
          'EXT_color_buffer_float is missing)');
    this.gl = gl;
    this.lost = false;
    this.onLost = (event) => {
      event.preventDefault();
      this.lost = true;
    };
    if (this.canvas.addEventListener) {
      this.canvas.addEventListener('webglcontextlost', this.onLost);
    }
    this.maxTextureSize = gl.getParameter(gl.MAX_TEXTURE_SIZE);
    this.maxTextureUnits = gl.getParameter(gl.MAX_TEXTURE_IMAGE_UNITS);
    this.maxDrawBuffers = Math.min(gl.getParameter(gl.MAX_DRAW_BUFFERS),
                                   gl.getParameter(gl.MAX_COLOR_ATTACHMENTS));
    // The unmasked names say which driver runs the model (e.g. llvmpipe or SwiftShader).
    const debug = gl.getExtension('WEBGL_debug_renderer_info');
    this.renderer = String(gl.getParameter(debug ? debug.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    this.vendor = String(gl.getParameter(debug ? debug.UNMASKED_VENDOR_WEBGL : gl.VENDOR));
    this.version = String(gl.getParameter(gl.VERSION));
  }

  // Throws when the GPU context was lost (driver reset, too many contexts): the model must be
  // loaded again.
  checkAlive() {
    if (this.lost || this.gl.isContextLost()) {
      this.lost = true;
      throw new TensorirError('the WebGL2 context was lost; load the model again');
    }
  }

  // A GL error after a step names the step: the state is then unknown and results are wrong.
  checkError(step) {
    const err = this.gl.getError();
    if (err !== this.gl.NO_ERROR) {
      this.checkAlive();
      fail(`WebGL error 0x${err.toString(16)} while ${step}`);
    }
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    if (this.canvas.removeEventListener) {
      this.canvas.removeEventListener('webglcontextlost', this.onLost);
    }
    // Frees the GPU memory now instead of at garbage collection (browsers cap live contexts).
    const lose = this.owned ? this.gl.getExtension('WEBGL_lose_context') : null;
    if (lose) lose.loseContext();
  }
}
