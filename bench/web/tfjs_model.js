// ResNet-18 (or any graph of the same operators) in TensorFlow.js ops, rebuilt from the
// tensorir package's graph section and params.bin: 4-d values are NHWC, conv weights
// [K, C/g, R, S] become [R, S, C, K], dense weights [out, in] become [in, out]. A conv2d or
// dense whose only reader is its bias_add (and that one's only reader a relu or clip 0..6)
// runs as one tf.fused op, the form TF.js's own converter produces.

function readerCounts(nodes, output) {
  const count = new Map();
  for (const n of nodes) for (const i of n.inputs) count.set(i, (count.get(i) || 0) + 1);
  count.set(output, (count.get(output) || 0) + 1);
  return count;
}

function pads(attrs, key = 'padding') {
  const p = attrs[key] || [0, 0];
  return p.length === 2 ? [p[0], p[1], p[0], p[1]] : p;  // top, left, bottom, right
}

// Weights moved into TF.js's layouts once, at build time.
function makeWeights(tf, pkg, nodes) {
  const w = new Map();
  const param = name => pkg.params.get(name);
  for (const n of nodes) {
    if (n.op === 'conv2d') {
      const p = param(n.inputs[1]);
      const g = n.attrs.groups || 1;
      const [k, cg] = p.shape;
      let t;
      if (g === 1) t = tf.tidy(() => tf.transpose(tf.tensor4d(p.data, p.shape), [2, 3, 1, 0]));
      else if (cg === 1 && g === k) t = tf.tidy(() => tf.transpose(tf.tensor4d(p.data, p.shape), [2, 3, 0, 1]));
      else throw new Error(`conv2d ${n.name}: groups=${g} is neither 1 nor depthwise; TF.js has no grouped conv`);
      w.set(n.inputs[1], t);
    } else if (n.op === 'dense') {
      const p = param(n.inputs[1]);
      w.set(n.inputs[1], tf.tidy(() => tf.transpose(tf.tensor2d(p.data, p.shape))));
    }
  }
  for (const n of nodes)
    for (const i of n.inputs)
      if (pkg.params.has(i) && !w.has(i)) {
        const p = pkg.params.get(i);
        w.set(i, tf.tensor(p.data, p.shape));  // vectors (bias, bn) and other constants as they are
      }
  return w;
}

export function buildTfjsModel(tf, pkg) {
  const nodes = pkg.nodes;
  const byName = new Map(nodes.map(n => [n.name, n]));
  const reads = readerCounts(nodes, pkg.output);
  const weights = makeWeights(tf, pkg, nodes);
  const soleReader = name => {
    if (reads.get(name) !== 1 || name === pkg.output) return null;
    return nodes.find(m => m.inputs.includes(name)) || null;
  };

  // Plan: which nodes fold into a fused conv/dense (bias, activation).
  const fused = new Map();  // anchor name -> {bias, activation, last}
  const skip = new Set();
  for (const n of nodes) {
    if (n.op !== 'conv2d' && n.op !== 'dense') continue;
    const b = soleReader(n.name);
    if (!b || b.op !== 'bias_add' || (b.attrs.axis ?? 1) !== 1 || b.inputs[0] !== n.name || !pkg.params.has(b.inputs[1]))
      continue;
    const f = {bias: b.inputs[1], activation: 'linear', last: b.name};
    skip.add(b.name);
    const a = soleReader(b.name);
    if (a && a.op === 'relu') f.activation = 'relu';
    else if (a && a.op === 'clip' && a.attrs.lo === 0 && a.attrs.hi === 6) f.activation = 'relu6';
    if (f.activation !== 'linear') { f.last = a.name; skip.add(a.name); }
    fused.set(n.name, f);
  }

  const nchwShape = v => (v.rank === 4 ? [v.shape[0], v.shape[3], v.shape[1], v.shape[2]] : v.shape);

  function forward(x) {
    const env = new Map([[pkg.input.name, tf.transpose(x, [0, 2, 3, 1])]]);
    const get = name => env.get(name) ?? weights.get(name);
    for (const n of nodes) {
      if (skip.has(n.name)) continue;
      const a = n.attrs || {};
      const x0 = get(n.inputs[0]);
      let y, out = n.name;
      switch (n.op) {
        case 'conv2d': {
          const [t, l, b, r] = pads(a);
          const f = fused.get(n.name);
          const args = {x: x0, filter: weights.get(n.inputs[1]), strides: a.strides || [1, 1],
                        pad: [[0, 0], [t, b], [l, r], [0, 0]], dilations: a.dilation || [1, 1]};
          if (f) Object.assign(args, {bias: weights.get(f.bias), activation: f.activation});
          y = (a.groups || 1) === 1 ? tf.fused.conv2d(args) : tf.fused.depthwiseConv2d(args);
          if (f) out = f.last;
          break;
        }
        case 'dense': {
          const f = fused.get(n.name);
          const args = {a: x0, b: weights.get(n.inputs[1])};
          if (f) Object.assign(args, {bias: weights.get(f.bias), activation: f.activation});
          y = tf.fused.matMul(args);
          if (f) out = f.last;
          break;
        }
        case 'bias_add':
          if ((a.axis ?? 1) !== 1) throw new Error(`bias_add ${n.name}: only axis 1 is supported`);
          y = tf.add(x0, get(n.inputs[1]));  // channels are the last TF.js axis
          break;
        case 'batch_norm': {
          const [g, beta, mean, v] = n.inputs.slice(1).map(get);
          y = tf.batchNorm(x0, mean, v, beta, g, a.eps ?? 1e-5);
          break;
        }
        case 'relu': y = tf.relu(x0); break;
        case 'clip': y = tf.clipByValue(x0, a.lo, a.hi); break;
        case 'add': y = tf.add(x0, get(n.inputs[1])); break;
        case 'multiply': y = tf.mul(x0, get(n.inputs[1])); break;
        case 'max_pool2d':
        case 'avg_pool2d': {
          const [t, l, b, r] = pads(a);
          const max = n.op === 'max_pool2d';
          let xi = x0, pad = 'valid';
          if (max && t === b && l === r && t === l) pad = t;  // out-of-range taps are skipped
          else if (t || l || b || r) {
            if (!max && a.count_include_pad === 0) throw new Error(`avg_pool2d ${n.name}: count_include_pad=0 with padding`);
            xi = tf.pad(x0, [[0, 0], [t, b], [l, r], [0, 0]], max ? -3.4e38 : 0);
          }
          y = max ? tf.maxPool(xi, a.pool_size, a.strides || [1, 1], pad)
                  : tf.avgPool(xi, a.pool_size, a.strides || [1, 1], pad);
          break;
        }
        case 'global_avg_pool2d': y = tf.mean(x0, [1, 2], true); break;
        case 'flatten':
          y = x0.rank === 4 && x0.shape[1] * x0.shape[2] !== 1
              ? tf.reshape(tf.transpose(x0, [0, 3, 1, 2]), [x0.shape[0], -1])  // NCHW element order
              : tf.reshape(x0, [x0.shape[0], -1]);
          break;
        case 'softmax':
          if (x0.rank !== 2 || (a.axis ?? 1) !== 1) throw new Error(`softmax ${n.name}: only [N, C] on axis 1`);
          y = tf.softmax(x0);
          break;
        default: throw new Error(`graph node ${n.name}: operator ${n.op} has no TF.js rule`);
      }
      const want = byName.get(out).shape;
      if (JSON.stringify(nchwShape(y)) !== JSON.stringify(want))
        throw new Error(`TF.js ${n.op} ${n.name} gives NCHW shape [${nchwShape(y)}], the graph says [${want}]`);
      env.set(out, y);
    }
    const y = env.get(pkg.output);
    return y.rank === 4 ? tf.transpose(y, [0, 3, 1, 2]) : y;
  }

  return {
    // Float32Array NCHW in, Float32Array out: upload, run, read back.
    async run(input) {
      const y = tf.tidy(() => forward(tf.tensor4d(input, pkg.input.shape)));
      const data = await y.data();
      y.dispose();
      return data;
    },
    dispose() { for (const t of weights.values()) t.dispose(); },
  };
}
