// Compiles the model's shaders once at load time. All programs are submitted before any status
// is queried, so a driver with parallel compilation can overlap them.
import { fail } from './errors.js';

function numbered(source) {
  return source.split('\n').map((line, i) => `${String(i + 1).padStart(4)}: ${line}`).join('\n');
}

function shader(gl, type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  return s;
}

function compileError(gl, s, what, source) {
  const log = (gl.getShaderInfoLog(s) || '').trim();
  // The log names lines; the numbered source (cut to a sensible size) lets a reader find them.
  const text = numbered(source);
  const listing = text.length > 6000 ? text.slice(0, 6000) + '\n...' : text;
  return `the ${what} does not compile: ${log || '(no log)'}\n${listing}`;
}

export class ProgramSet {
  constructor(ctx, vertexSource, fragmentSources, names) {
    this.ctx = ctx;
    const gl = ctx.gl;
    gl.getExtension('KHR_parallel_shader_compile');
    const vs = shader(gl, gl.VERTEX_SHADER, vertexSource);
    const stages = fragmentSources.map((src) => {
      const fs = shader(gl, gl.FRAGMENT_SHADER, src);
      const program = gl.createProgram();
      gl.attachShader(program, vs);
      gl.attachShader(program, fs);
      gl.linkProgram(program);
      return { fs, program };
    });
    this.programs = stages.map(({ fs, program }, i) => {
      if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
        let message;
        if (!gl.getShaderParameter(vs, gl.COMPILE_STATUS)) {
          message = compileError(gl, vs, 'vertex shader', vertexSource);
        } else if (!gl.getShaderParameter(fs, gl.COMPILE_STATUS)) {
          message = compileError(gl, fs, `fragment shader of program ${i} (${names[i]})`,
                                 fragmentSources[i]);
        } else {
          const log = (gl.getProgramInfoLog(program) || '(no log)').trim();
          message = `program ${i} (${names[i]}) does not link: ${log}`;
        }
        ctx.checkAlive();
        for (const st of stages) {
          gl.deleteProgram(st.program);
          gl.deleteShader(st.fs);
        }
        gl.deleteShader(vs);
        fail(message);
      }
      return program;
    });
    for (const { fs } of stages) gl.deleteShader(fs);  // the linked programs keep them
    gl.deleteShader(vs);
    this.locations = this.programs.map(() => new Map());
  }

  // A uniform's location, or null where the compiler removed an unused uniform.
  location(programIndex, name) {
    const cache = this.locations[programIndex];
    if (!cache.has(name)) {
      cache.set(name, this.ctx.gl.getUniformLocation(this.programs[programIndex], name));
    }
    return cache.get(name);
  }

  dispose() {
    for (const p of this.programs) this.ctx.gl.deleteProgram(p);
    this.programs = [];
  }
}
