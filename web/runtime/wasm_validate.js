// Checks of a WebAssembly package's model.json ("tensorir-wasm") before anything runs:
// every offset inside the memory and aligned, every input and output of a dtype run() has
// typed arrays for, and the regions apart: an input or output laid over the weights (params.bin)
// would overwrite them at the first run, and a misaligned offset would fail inside the
// engine with a message about typed arrays. And the plan against itself and its graph: each
// kernel is the function compiled for its graph node, given the tensors that node's group
// reads, in order, at their offsets, none read before a kernel computes it or after another
// has written over it (as the saved CPU model's loader checks, lib/runtime/plan_check.cpp),
// so that an edited plan is refused rather than giving a wrong answer.
import { IO_DTYPES, ioBytes, isIoDtype } from './dtypes.js';
import { check } from './errors.js';
import { numel } from './inputs.js';

export const WASM_FORMAT = 'tensorir-wasm';
export const WASM_VERSION = 1;

const isInt = (v) => Number.isSafeInteger(v);
const isShape = (s) => Array.isArray(s) && s.every((d) => isInt(d) && d >= 0);
// The most memory a package's weights, inputs and results take (the exporter's limit,
// backends/llvm/wasm_package.cpp): wasm32 addresses 4 GiB, shared memory 2 GiB.
const MAX_REGION = 1536 << 20;
const DAMAGED = 'the package is damaged or was edited by hand; export it again';

function checkTensor(t, what, memoryBytes) {
  check(t && typeof t.name === 'string', `model.json: ${what} has no "name"`);
  const name = `${what} "${t.name}"`;
  check(Array.isArray(t.shape) && t.shape.every((d) => isInt(d) && d >= 0),
        () => `model.json: ${name} has an invalid shape ${JSON.stringify(t.shape)}`);
  check(isIoDtype(t.dtype),
        () => `model.json: ${name} has dtype ${JSON.stringify(t.dtype)}; inputs and outputs are ${IO_DTYPES.join(', ')}`);
  const bytes = ioBytes(t.dtype);
  check(isInt(t.offset) && t.offset >= 0 && t.offset + numel(t.shape) * bytes <= memoryBytes,
        () => `model.json: ${name} at offset ${t.offset} does not lie inside the model's ` +
              `${memoryBytes} bytes of memory; ${DAMAGED}`);
  check(t.offset % bytes === 0,
        () => `model.json: ${name} is at offset ${t.offset}, which is not a multiple of ${bytes} as a ${t.dtype} ` +
              `array needs; ${DAMAGED}`);
}

// [start, end) of a tensor in the memory.
const span = (t) => [t.offset, t.offset + numel(t.shape) * ioBytes(t.dtype)];
const overlap = ([a0, a1], [b0, b1]) => a0 < b1 && b0 < a1;

// Whether output `t` is a weight of its name, at the weight's place: a constant of the
// model, which no kernel writes (checkOrder).
function isWeight(model, t) {
  return (model.params.tensors || []).some((p) => p.name === t.name && p.offset === t.offset && p.dtype === t.dtype &&
                                                   isShape(p.shape) && numel(p.shape) === numel(t.shape));
}

// The weights (params.bin, at offset 0), the inputs and the outputs must not share bytes;
// an output may be an input itself (a graph that only passes its input through), or a
// weight of its name (a constant of the model, which no kernel writes).
function checkRegions(model) {
  const weights = [0, model.params.bytes];
  const tensors = [...model.inputs.map((t) => ['input', t]), ...model.outputs.map((t) => ['output', t])];
  for (const [what, t] of tensors) {
    if (what === 'output' && isWeight(model, t)) continue;
    check(!overlap(span(t), weights),
          () => `model.json: ${what} "${t.name}" at bytes [${span(t)[0]}, ${span(t)[1]}) overlaps the weights ` +
                `(params.bin, bytes [0, ${weights[1]})), which running the model would overwrite; ${DAMAGED}`);
  }
  tensors.forEach(([what, t], i) => {
    for (const [otherWhat, o] of tensors.slice(i + 1)) {
      const same = what !== otherWhat && span(t)[0] === span(o)[0] && span(t)[1] === span(o)[1];
      check(same || !overlap(span(t), span(o)),
            () => `model.json: ${what} "${t.name}" (bytes [${span(t)[0]}, ${span(t)[1]})) and ${otherWhat} ` +
                  `"${o.name}" (bytes [${span(o)[0]}, ${span(o)[1]})) overlap; ${DAMAGED}`);
    }
  });
  // Kernel arguments: a weight or an input where one starts, else scratch (results and
  // temporaries), which lies past the weights and clear of the inputs.
  const starts = new Set([...(model.params.tensors || []).map((p) => p.offset), ...tensors.map(([, t]) => t.offset)]);
  for (const k of model.kernels) {
    for (const a of k.args) {
      if (starts.has(a)) continue;
      const inside = a < weights[1] ? 'the weights' : model.inputs.find((t) => overlap([a, a + 1], span(t)));
      check(!inside, () => `model.json: kernel ${k.name} has an argument at offset ${a}, inside ` +
                           `${inside === 'the weights' ? inside : `input "${inside.name}"`} but not at the start of ` +
                           `a tensor there; ${DAMAGED}`);
    }
  }
}

export function validateWasmModel(model, url = 'model.json') {
  check(model.version === WASM_VERSION,
        () => `${url} has WebAssembly package format version ${JSON.stringify(model.version)}, but ` +
              `this runtime supports version ${WASM_VERSION}; export the model again with the ` +
              'tensorir that ships this runtime');
  const memory = model.memory;
  check(memory && isInt(memory.bytes) && memory.bytes > 0 && isInt(memory.align) && memory.align > 0,
        'model.json: "memory" must give "bytes" and "align"');
  check(memory.bytes <= MAX_REGION,
        () => `model.json: "memory" has ${memory.bytes} bytes, more than the ${MAX_REGION >> 20} MiB a WebAssembly ` +
              `package may take; ${DAMAGED}`);
  // The runtime lays its 8-byte argument slots right after the model's memory.
  check(memory.align >= 8 && (memory.align & (memory.align - 1)) === 0 && memory.bytes % memory.align === 0,
        () => `model.json: "memory" has bytes ${memory.bytes} and align ${memory.align}; align must be a power ` +
              `of two of at least 8 and bytes a multiple of it; ${DAMAGED}`);
  for (const key of ['module', 'threaded_module', 'params']) {
    const f = model[key];
    check(f && typeof f.file === 'string' && isInt(f.bytes) && f.bytes >= 0,
          `model.json: "${key}" must give "file" and "bytes"`);
    check(typeof f.fnv1a32 === 'string' && /^0x[0-9a-fA-F]{8}$/.test(f.fnv1a32),
          `model.json: "${key}.fnv1a32" must be a hex string like "0x1234abcd"`);
  }
  const maxMemory = model.threaded_module.max_memory;
  check(isInt(maxMemory) && maxMemory > 0 && maxMemory <= 2 ** 32 && maxMemory % 65536 === 0,
        'model.json: "threaded_module.max_memory" must be a whole number of 64 KiB pages, at most 4 GiB');
  check(model.params.bytes <= memory.bytes, 'model.json: params.bin is larger than the model\'s memory');
  check(model.params.tensors === undefined ||
            (Array.isArray(model.params.tensors) &&
             model.params.tensors.every((p) => p && typeof p.name === 'string' && isShape(p.shape) &&
                                               !Number.isNaN(dtypeBytes(p.dtype)) && isInt(p.offset) &&
                                               p.offset >= 0 && p.offset < model.params.bytes)),
        () => `model.json: "params.tensors" must list weights (name, shape, dtype, offset) at offsets inside ` +
              `params.bin; ${DAMAGED}`);
  for (const p of model.params.tensors || []) {
    const end = p.offset + numel(p.shape) * dtypeBytes(p.dtype);
    check(end <= model.params.bytes,
          () => `model.json: weight "${p.name}" (${p.dtype} [${p.shape}]) at offset ${p.offset} ends at byte ${end}, ` +
                `past the end of params.bin (${model.params.bytes} bytes); ${DAMAGED}`);
  }
  for (const key of ['inputs', 'outputs']) {
    check(Array.isArray(model[key]) && model[key].length > 0, `model.json: "${key}" must be a non-empty list`);
    model[key].forEach((t) => checkTensor(t, key.slice(0, -1), memory.bytes));
  }
  check(Array.isArray(model.kernels), 'model.json: "kernels" must be a list');
  model.kernels.forEach((k, i) => {
    check(k && typeof k.name === 'string', `model.json: kernel #${i} has no "name"`);
    check(Array.isArray(k.args) && k.args.every((a) => isInt(a) && a >= 0 && a < memory.bytes),
          () => `model.json: kernel ${k.name} has arguments outside the model's memory; ${DAMAGED}`);
    const odd = k.args.find((a) => a % memory.align !== 0);
    check(odd === undefined,
          () => `model.json: kernel ${k.name} has an argument at offset ${odd}, which is not a multiple of the ` +
                `model's alignment (${memory.align} bytes) that its code assumes; ${DAMAGED}`);
  });
  checkRegions(model);
  if (model.graph === undefined) checkOrder(model);
  else checkPlan(model);
}

// Bytes per element of a dtype ("float32", "int8", "bool", ...), or NaN.
export function dtypeBytes(dtype) {
  if (dtype === 'bool') return 1;
  const m = /^(?:float|bfloat|int|uint)(8|16|32|64)$/.exec(dtype);
  return m ? Number(m[1]) / 8 : NaN;
}

// The function name the exporter gives the kernel computing graph node `index` (lib/graph/
// executor.cpp): "k", the index, "_" and the node's name with every byte but ASCII letters
// and digits replaced by "_".
function kernelName(index, nodeName) {
  const alnum = (b) => (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122);
  let id = Array.from(new TextEncoder().encode(nodeName), (b) => (alnum(b) ? String.fromCharCode(b) : '_')).join('');
  if (id === '' || /^[0-9]/.test(id)) id = `n${id}`;
  return `k${index}_${id}`;
}

// Without a graph (a package written by hand): each argument a kernel reads a weight, an
// input or the result of an earlier kernel, every output computed. A kernel function may
// be called more than once (identical groups share one).
function checkOrder(model) {
  const inputs = new Set(model.inputs.map((t) => t.offset));
  const written = new Set();
  model.kernels.forEach((k, i) => {
    for (const a of k.args.slice(0, -1)) {
      check(a < model.params.bytes || inputs.has(a) || written.has(a),
            () => `model.json: kernel ${k.name} (kernels[${i}]) reads offset ${a} before any kernel writes there; ` +
                  DAMAGED);
    }
    if (!k.args.length) return;
    const result = k.args[k.args.length - 1];
    check(result >= model.params.bytes,
          () => `model.json: kernel ${k.name} (kernels[${i}]) writes its result at offset ${result}, inside the ` +
                `weights; ${DAMAGED}`);
    written.add(result);
  });
  for (const t of model.outputs) {
    check(inputs.has(t.offset) || written.has(t.offset) || isWeight(model, t),
          () => `model.json: output "${t.name}" at offset ${t.offset} is not written by any kernel; ${DAMAGED}`);
  }
}

// The plan against the graph: each kernel's function named after the node it computes, its
// arguments the tensors its group of nodes ("fused") reads from outside, in the order the
// exporter takes them (lib/graph/executor.cpp, compile_group), then its result, each at
// the offset of that input, weight or earlier result; the results replayed in order over
// the memory, so that none is read before it is computed or after another result was
// written over it.
function checkPlan(model) {
  const graph = model.graph;
  check(graph !== null && typeof graph === 'object' && Array.isArray(graph.nodes),
        `model.json: "graph" must hold a list of "nodes"; ${DAMAGED}`);
  const nodes = new Map();  // name -> [index, node]
  graph.nodes.forEach((n, i) => {
    check(n && typeof n.name === 'string' && Array.isArray(n.inputs) && n.inputs.every((x) => typeof x === 'string') &&
              isShape(n.shape) && typeof n.dtype === 'string',
          () => `model.json: graph node #${i} must give "name", "inputs", "shape" and "dtype"; ${DAMAGED}`);
    check(!nodes.has(n.name), () => `model.json: the graph has two nodes named "${n.name}"; ${DAMAGED}`);
    nodes.set(n.name, [i, n]);
  });
  const node = (name, who) => {
    check(nodes.has(name), () => `model.json: ${who} names "${name}", which is not a node of the graph; ${DAMAGED}`);
    return nodes.get(name)[1];
  };
  const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);
  const checkShape = (t, what, n) => {
    check(sameShape(t.shape, n.shape),
          () => `model.json: ${what} "${t.name}" has shape ${JSON.stringify(t.shape)}, but the graph's node has ` +
                `${JSON.stringify(n.shape)}; ${DAMAGED}`);
  };
  const bytesOf = (n) => {
    const b = dtypeBytes(n.dtype);
    check(!Number.isNaN(b),
          () => `model.json: graph node "${n.name}" has dtype ${JSON.stringify(n.dtype)}; ${DAMAGED}`);
    return numel(n.shape) * b;
  };
  // What the kernels may read: name -> {what, offset, bytes, by (kernel index), over (kernel
  // index that wrote over it)}.
  const values = new Map();
  for (const t of model.inputs) {
    const n = node(t.name, `input "${t.name}"`);
    check(n.op === 'input', () => `model.json: input "${t.name}" is a graph node of op ${JSON.stringify(n.op)}, not ` +
                                  `an input; ${DAMAGED}`);
    checkShape(t, 'input', n);
    check(t.dtype === n.dtype, () => `model.json: input "${t.name}" has dtype ${JSON.stringify(t.dtype)}, but the ` +
                                     `graph's node has ${JSON.stringify(n.dtype)}; ${DAMAGED}`);
    check(!values.has(t.name), () => `model.json: input "${t.name}" is listed twice; ${DAMAGED}`);
    values.set(t.name, { what: 'input', offset: t.offset, bytes: bytesOf(n) });
  }
  for (const p of model.params.tensors || []) {
    const n = node(p.name, `weight "${p.name}"`);
    check(n.op === 'constant', () => `model.json: weight "${p.name}" is a graph node of op ${JSON.stringify(n.op)}, ` +
                                     `not a constant; ${DAMAGED}`);
    checkShape(p, 'weight', n);
    check(p.dtype === n.dtype, () => `model.json: weight "${p.name}" has dtype ${JSON.stringify(p.dtype)}, but the ` +
                                     `graph's node has ${JSON.stringify(n.dtype)}; ${DAMAGED}`);
    check(!values.has(p.name), () => `model.json: weight "${p.name}" is listed twice; ${DAMAGED}`);
    values.set(p.name, { what: 'weight', offset: p.offset, bytes: bytesOf(n) });
  }
  const describe = (name) => {
    const v = values.get(name);
    return v.what === 'result' ? `"${name}" (the result of ${model.kernels[v.by].name})` : `${v.what} "${name}"`;
  };
  model.kernels.forEach((k, i) => {
    const who = `kernel ${k.name} (kernels[${i}])`;
    check(Array.isArray(k.fused) && k.fused.length > 0 && k.fused.every((f) => typeof f === 'string') &&
              new Set(k.fused).size === k.fused.length,
          () => `model.json: ${who} must list the distinct graph nodes it computes in "fused"; ${DAMAGED}`);
    const result = k.fused[k.fused.length - 1];
    check(k.node === result,
          () => `model.json: ${who} computes node ${JSON.stringify(k.node)}, but the last of its "fused" nodes is ` +
                `"${result}"; ${DAMAGED}`);
    const resultNode = node(result, who);
    // A group identical to an earlier one calls that group's kernel (graph::build
    // compiles it once).
    const fname = kernelName(nodes.get(result)[0], result);
    check(k.name === fname || model.kernels.slice(0, i).some((e) => e.name === k.name),
          () => `model.json: ${who} computes graph node "${result}" (#${nodes.get(result)[0]}), whose kernel is ` +
                `${fname}; ${DAMAGED}`);
    // The tensors the group reads from outside, each once, in the order its nodes read them.
    const reads = [];
    const seen = new Set();
    for (const f of k.fused) {
      for (const x of node(f, who).inputs) {
        node(x, `graph node "${f}"`);
        if (!seen.has(x)) reads.push(x);
        seen.add(x);
      }
      seen.add(f);
    }
    check(k.args.length === reads.length + 1,
          () => `model.json: ${who} is given ${k.args.length} arguments, but its nodes read ${reads.length} tensors ` +
                `(${reads.join(', ')}) and write one; ${DAMAGED}`);
    reads.forEach((x, a) => {
      const v = values.get(x);
      check(v !== undefined, () => `model.json: ${who} reads "${x}" before any kernel computes it` +
                                   `${nodes.get(x)[1].op === 'constant' ? ' (a weight params.tensors lacks)' : ''}; ` +
                                   DAMAGED);
      check(k.args[a] === v.offset,
            () => `model.json: argument ${a} of ${who} is offset ${k.args[a]}, but it is ${describe(x)}, at offset ` +
                  `${v.offset}; ${DAMAGED}`);
      check(v.over === undefined,
            () => `model.json: ${who} reads ${describe(x)}, but ${model.kernels[v.over].name} has since written over ` +
                  `it; ${DAMAGED}`);
    });
    check(!values.has(result),
          () => `model.json: ${who} computes ${describe(result)} again; ${DAMAGED}`);
    const out = { what: 'result', offset: k.args[reads.length], bytes: bytesOf(resultNode), by: i };
    const span = [out.offset, out.offset + out.bytes];
    check(span[1] <= model.memory.bytes,
          () => `model.json: ${who} writes "${result}" at bytes [${span}), past the model's ${model.memory.bytes} ` +
                `bytes of memory; ${DAMAGED}`);
    for (const [name, v] of values) {
      if (!overlap(span, [v.offset, v.offset + v.bytes])) continue;
      check(v.what === 'result' && !reads.includes(name),
            () => `model.json: ${who} writes "${result}" (bytes [${span})) over ${describe(name)}, which ` +
                  `${v.what === 'result' ? 'it reads' : 'no kernel may write'}; ${DAMAGED}`);
      v.over = i;
    }
    values.set(result, out);
  });
  for (const t of model.outputs) {
    const n = node(t.name, `output "${t.name}"`);
    checkShape(t, 'output', n);
    check(t.dtype === n.dtype, () => `model.json: output "${t.name}" has dtype ${JSON.stringify(t.dtype)}, but the ` +
                                     `graph's node has ${JSON.stringify(n.dtype)}; ${DAMAGED}`);
    const v = values.get(t.name);
    check(v !== undefined, () => `model.json: output "${t.name}" is computed by no kernel; ${DAMAGED}`);
    check(v.offset === t.offset,
          () => `model.json: output "${t.name}" is read at offset ${t.offset}, but it is ${describe(t.name)}, at ` +
                `offset ${v.offset}; ${DAMAGED}`);
    check(v.over === undefined,
          () => `model.json: output "${t.name}" is written over by ${model.kernels[v.over].name} after it is ` +
                `computed; ${DAMAGED}`);
  }
}
