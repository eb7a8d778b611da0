// WebAssembly packages under Node (no browser): each package's answer against the "llvm"
// build, and every error case of loading one (broken, mismatched or unsupported files,
// bad inputs) as a rejected promise with a clear TensorirError.
//
// With --index DIR (tensorir_web_packages --target webgl+wasm), packages holding both
// builds: here, without WebGL2, load() must choose the WebAssembly one. With --lookup DIR
// (tensorir_web_packages --demo: masked_lookup), indices read at run time: negative ones
// count from the end, and one out of range fails the run with the kernel's message.
//
//   node wasm_test.mjs PACKAGES_DIR [--index DIR] [--lookup DIR]   (tensorir_web_packages --target wasm)
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as tensorir from '../../web/runtime/tensorir.js';
import { checkExports, checkInstanceExports, makeImports } from '../../web/runtime/wasm_imports.js';
import { startServer } from './static_server.mjs';

const args = process.argv.slice(2);
const indexAt = args.indexOf('--index');
const indexDir = indexAt >= 0 ? args.splice(indexAt, 2)[1] : null;
const lookupAt = args.indexOf('--lookup');
const lookupDir = lookupAt >= 0 ? args.splice(lookupAt, 2)[1] : null;
const dir = args[0];
if (!dir || !existsSync(dir)) {
  console.error('usage: node wasm_test.mjs PACKAGES_DIR (written by tensorir_web_packages --target wasm)');
  process.exit(2);
}
const packages = readdirSync(dir).filter((n) => existsSync(join(dir, n, 'model.json'))).sort();
if (!packages.length) {
  console.error(`${dir} holds no package`);
  process.exit(1);
}

let failed = 0;
const report = (ok, what, detail) => {
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failed++;
};
const floats = (file) => {
  const b = readFileSync(file);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

// The C math the runtime gives modules follows C, not Math (halves round away from zero).
{
  const env = makeImports(null, {}).env;
  const cases = [['roundf(-2.5)', env.roundf(-2.5), -3], ['roundf(2.5)', env.roundf(2.5), 3],
                 ['roundf(-0.4)', env.roundf(-0.4), -0], ['expf(1)', env.expf(1), Math.fround(Math.E)],
                 ['fmaf(3, 0.5, 1)', env.fmaf(3, 0.5, 1), 2.5], ['fmodf(-7, 3)', env.fmodf(-7, 3), -1],
                 ['asinhf(1)', env.asinhf(1), Math.fround(Math.asinh(1))], ['atan(1)', env.atan(1), Math.PI / 4],
                 ['acoshf(0.5)', env.acoshf(0.5), NaN],
                 // Math has no erf: the runtime's own, against C's erf rounded to float.
                 ['erff(0.5)', env.erff(0.5), Math.fround(0.5204998778130465)],
                 ['erff(-1e-4)', env.erff(-1e-4), Math.fround(-1.1283791633342487e-4)],
                 ['erff(3)', env.erff(3), Math.fround(0.9999779095030014)], ['erff(-9)', env.erff(-9), -1]];
  for (const [what, got, want] of cases) report(Object.is(got, want), `math import ${what}`, `${got}, expected ${want}`);
}

const server = await startServer([['/pkg/', dir]]);
const url = (rel) => `${server.url}/pkg/${rel}`;
try {
  for (const name of packages) {
    const test = JSON.parse(readFileSync(join(dir, name, 'test.json'), 'utf8'));
    const json = JSON.parse(readFileSync(join(dir, name, 'model.json'), 'utf8'));
    if (json.format !== tensorir.WASM_FORMAT) {
      report(false, `package ${name}`, `format ${json.format}, expected ${tensorir.WASM_FORMAT}`);
      continue;
    }
    try {
      const model = await tensorir.load(url(`${name}/model.json`));
      const input = floats(join(dir, name, 'test_input.bin'));
      const want = floats(join(dir, name, 'test_expected.bin'));
      const got = (await model.run({ [test.input]: input }))[test.output];
      const again = (await model.run({ [test.input]: input }))[test.output];
      let maxAbs = 0, maxRef = 0, rerun = 0;
      for (let i = 0; i < want.length; ++i) {
        maxAbs = Math.max(maxAbs, Math.abs(got[i] - want[i]));
        maxRef = Math.max(maxRef, Math.abs(want[i]));
        if (again[i] !== got[i]) rerun++;
      }
      const rel = maxRef > 0 ? maxAbs / maxRef : maxAbs;
      const ok = got.length === want.length && rel <= test.tolerance && rerun === 0 && model.threads === 1;
      report(ok, `package ${name}`, `max rel err ${rel.toExponential(2)} (tol ${test.tolerance}), ` +
             `${want.length} values, rerun differs at ${rerun}, ${model.threads} thread(s)`);
      const profile = await model.profile();
      report(profile.length === json.kernels.length && profile.every((k) => k.ms >= 0),
             `profile ${name}`, `${profile.length} kernels`);
      model.dispose();
    } catch (e) {
      report(false, `package ${name}`, e.message);
    }
  }

  // The error cases, on copies of the smallest package, and of the smallest with several
  // kernels for the order of the plan.
  const bySize = packages.map((n) => [n, JSON.parse(readFileSync(join(dir, n, 'model.json'), 'utf8'))])
    .filter(([, j]) => j.params.bytes >= 8).sort((a, b) => a[1].params.bytes - b[1].params.bytes);
  const small = bySize[0][0];
  const multi = bySize.find(([, j]) => j.kernels.length >= 2)[0];
  const scratch = mkdtempSync(join(tmpdir(), 'tensorir-wasm-'));
  server.mount('/broken/', scratch);
  let n = 0;
  const broken = (edit, pkg = small) => {
    const d = join(scratch, String(n++));
    cpSync(join(dir, pkg), d, { recursive: true });
    edit(d);
    return `${server.url}/broken/${d.slice(scratch.length + 1)}/model.json`;
  };
  const editJson = (d, f) => {
    const j = JSON.parse(readFileSync(join(d, 'model.json'), 'utf8'));
    f(j);
    writeFileSync(join(d, 'model.json'), JSON.stringify(j));
  };
  const truncate = (file, by) => (d) => {
    const b = readFileSync(join(d, file));
    writeFileSync(join(d, file), b.subarray(0, b.length - by));
  };
  const flip = (file) => (d) => {
    const b = readFileSync(join(d, file));
    b[b.length >> 1] ^= 0x55;
    writeFileSync(join(d, file), b);
  };
  const cases = [
    ['a truncated model.wasm', truncate('model.wasm', 7), /model\.wasm is truncated/],
    ['a corrupt model.wasm', flip('model.wasm'), /model\.wasm is corrupt/],
    ['a truncated params.bin', truncate('params.bin', 4), /params\.bin is truncated/],
    ['a corrupt params.bin', flip('params.bin'), /params\.bin is corrupt/],
    ['a missing model.wasm', (d) => rmSync(join(d, 'model.wasm')), /HTTP 404/],
    ['another version', (d) => editJson(d, (j) => { j.version = 7; }), /format version 7.*supports version 1/],
    ['an input outside the memory', (d) => editJson(d, (j) => { j.inputs[0].offset = j.memory.bytes; }),
     /does not lie inside/],
    ['a kernel argument outside the memory', (d) => editJson(d, (j) => { j.kernels[0].args[0] = 1 << 30; }),
     /outside the model's memory/],
    // Regions laid over each other, and offsets the engine's typed arrays would refuse.
    ['an input over the weights', (d) => editJson(d, (j) => { j.inputs[0].offset = 0; }),
     /input "[^"]+" at bytes \[0, \d+\) overlaps the weights \(params\.bin/],
    ['an output over the weights', (d) => editJson(d, (j) => { j.outputs[0].offset = j.memory.align; }),
     /output "[^"]+" at bytes .* overlaps the weights/],
    ['an output over the input', (d) => editJson(d, (j) => { j.outputs[0].offset = j.inputs[0].offset + 64; }),
     /input "[^"]+" .* and output "[^"]+" .* overlap/],
    ['a misaligned input', (d) => editJson(d, (j) => { j.inputs[0].offset += 2; }),
     /input "[^"]+" is at offset \d+, which is not a multiple of 4/],
    ['a memory size the argument slots cannot follow', (d) => editJson(d, (j) => { j.memory.bytes += 4; }),
     /align must be a power of two of at least 8 and bytes a multiple of it/],
    ['an alignment too small', (d) => editJson(d, (j) => { j.memory.align = 4; }), /align must be a power of two/],
    ['a kernel argument inside the weights', (d) => editJson(d, (j) => { j.kernels[0].args[0] = j.memory.align; }),
     /argument at offset \d+, inside the weights but not at the start of a tensor/],
    // Without the graph (whose replay would name the tensor written over) the order check
    // refuses it.
    ['a kernel result over a weight', (d) => editJson(d, (j) => {
      delete j.graph;
      j.kernels[0].args[j.kernels[0].args.length - 1] = 0;
    }), /writes its result at offset 0, inside the weights/],
    ['an output on a weight of another name', (d) => editJson(d, (j) => {
      j.outputs[0].offset = j.params.tensors[0].offset;
      j.outputs[0].shape = j.params.tensors[0].shape;
    }), /output "[^"]+" at bytes \[0, \d+\) overlaps the weights/],
    ['a misaligned kernel argument', (d) => editJson(d, (j) => { j.kernels[0].args[0] += 8; }),
     /not a multiple of the model's alignment/],
    // The plan against its graph and in its order.
    ['a kernel named after no node', (d) => editJson(d, (j) => { j.kernels[0].name = 'no_such_kernel'; }),
     /kernel no_such_kernel \(kernels\[0\]\) computes graph node "[^"]+" \(#\d+\), whose kernel is k\d+_/],
    ['kernel arguments swapped', (d) => editJson(d, (j) => {
      const a = j.kernels[0].args;
      [a[0], a[1]] = [a[1], a[0]];
    }), /argument 0 of kernel \w+ \(kernels\[0\]\) is offset \d+, but it is input "[^"]+", at offset \d+/],
    ['a kernel argument naming another weight', (d) => editJson(d, (j) => { j.kernels[0].args[2] = 0; }),
     /argument 2 of kernel \w+ \(kernels\[0\]\) is offset 0, but it is weight "[^"]+", at offset \d+/],
    ['an input shape the graph does not have', (d) => editJson(d, (j) => { j.inputs[0].shape.reverse(); }),
     /input "[^"]+" has shape \[[\d,]+\], but the graph's node has \[[\d,]+\]/],
    ['a weight past the end of params.bin, size and checksum written anew', (d) => {
      // The last weight cut short: params.bin's size and checksum in model.json agree.
      const last = JSON.parse(readFileSync(join(d, 'model.json'), 'utf8')).params.tensors.at(-1);
      const end = last.offset + last.shape.reduce((a, b) => a * b, 1) * 4;
      const p = readFileSync(join(d, 'params.bin')).subarray(0, end - 4);
      writeFileSync(join(d, 'params.bin'), p);
      editJson(d, (j) => { j.params.bytes = p.length; j.params.fnv1a32 = fnv(p); });
    }, /weight "[^"]+" \(.*\) at offset \d+ ends at byte \d+, past the end of params\.bin \(\d+ bytes\)/],
    ['a memory larger than a package may take', (d) => editJson(d, (j) => { j.memory.bytes = 2 ** 31; }),
     /"memory" has 2147483648 bytes, more than the 1536 MiB a WebAssembly package may take/],
    ['kernels out of order', (d) => editJson(d, (j) => { j.kernels.reverse(); }),
     /kernel \w+ \(kernels\[0\]\) reads "[^"]+" before any kernel computes it/, multi],
    ['a kernel given another kernel\'s function', (d) => editJson(d, (j) => { j.kernels[0].name = j.kernels[1].name; }),
     /kernels\[0\]\) computes graph node "[^"]+" \(#\d+\), whose kernel is/, multi],
    ['an output read where no kernel writes it', (d) => editJson(d, (j) => {
      j.outputs[0].offset = j.kernels.at(-2).args.at(-1);
    }), /output "[^"]+" is read at offset \d+, but it is "[^"]+" \(the result of \w+\), at offset \d+/, multi],
    ['a kernel writing its result over what it reads', (d) => editJson(d, (j) => {
      const k = j.kernels.at(-1);
      k.args[k.args.length - 1] = k.args[0];
      j.outputs[0].offset = k.args[0];
    }), /kernel \w+ \(kernels\[\d+\]\) writes "[^"]+" \(bytes \[\d+,\d+\)\) over "[^"]+" \(the result of \w+\), which/,
     multi],
    // Modules that lack what model.json and the runtime use (the export section rewritten).
    ['a module without the kernel model.json names',
     editWasm((e) => e.map((x) => (x.kind === 0 && x.name.startsWith('k') ? { ...x, name: `${x.name}_renamed` } : x))),
     /model\.wasm has no kernel k\d+_\w+; the package's files come from different exports/],
    ['a module without __heap_base', editWasm((e) => e.filter((x) => x.name !== '__heap_base')),
     /model\.wasm has no global __heap_base/],
    ['a module without __indirect_function_table',
     editWasm((e) => e.filter((x) => x.name !== '__indirect_function_table')),
     /model\.wasm has no table __indirect_function_table/],
    ['a module whose __heap_base is a function', editWasm((e) => [
      ...e.filter((x) => x.name !== '__heap_base'), { ...e.find((x) => x.kind === 0), name: '__heap_base' }]),
     /model\.wasm has __heap_base as a function where a global is needed/],
    ['a module whose __indirect_function_table is a global', editWasm((e) => [
      ...e.filter((x) => x.name !== '__indirect_function_table'),
      { ...e.find((x) => x.name === '__heap_base'), name: '__indirect_function_table' }]),
     /model\.wasm has __indirect_function_table as a global where a table is needed/],
    ['a module whose __heap_base is a 64-bit integer', (d) => {
      const kernel = JSON.parse(readFileSync(join(d, 'model.json'), 'utf8')).kernels[0].name;
      writeModule(d, handWrittenModule(kernel, 0x7e));
    }, /model\.wasm exports __heap_base as a 64-bit integer, not a 32-bit address/],
    ['a module importing what the runtime lacks', (d) => {
      // An import section naming env.no_such_function, spliced into a minimal module.
      const wasm = Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0,
                                2, 0x18, 1, 3, 0x65, 0x6e, 0x76, 0x10, ...Buffer.from('no_such_function'), 0, 0]);
      writeFileSync(join(d, 'model.wasm'), wasm);
      editJson(d, (j) => { j.module.bytes = wasm.length; j.module.fnv1a32 = fnv(wasm); });
    }, /imports env\.no_such_function/],
  ];
  for (const [what, edit, pattern, pkg] of cases) {
    try {
      const m = await tensorir.load(broken(edit, pkg));
      m.dispose();
      report(false, what, 'loaded');
    } catch (e) {
      report(e instanceof tensorir.TensorirError && pattern.test(e.message), what, e.message);
    }
  }
  // The threaded module's exports, which Node cannot load with workers: checked directly.
  {
    const kernels = JSON.parse(readFileSync(join(dir, small, 'model.json'), 'utf8')).kernels.map((k) => k.name);
    const threaded = readFileSync(join(dir, small, 'model.threads.wasm'));
    const single = readFileSync(join(dir, small, 'model.wasm'));
    const expectCheck = (what, fn, pattern) => {
      try {
        fn();
        report(pattern === null, what, 'passed');
      } catch (e) {
        report(pattern !== null && e instanceof tensorir.TensorirError && pattern.test(e.message), what, e.message);
      }
    };
    const compile = (bytes) => new WebAssembly.Module(bytes);
    expectCheck('the threaded module has what threads need',
                () => checkExports(compile(threaded), 'model.threads.wasm', kernels, true), null);
    expectCheck('a threaded module without __stack_pointer', () => checkExports(
      compile(rewriteExports(threaded, (e) => e.filter((x) => x.name !== '__stack_pointer'))), 'model.threads.wasm',
      kernels, true), /model\.threads\.wasm has no global __stack_pointer/);
    expectCheck('the single-thread module, used for threads', () => checkExports(compile(single), 'model.wasm',
                                                                                 kernels, true),
                /model\.wasm has no global __stack_pointer/);
    // __stack_pointer exported as __heap_base, an immutable global: a worker could not set it.
    const frozen = compile(rewriteExports(single, (e) => [...e, { ...e.find((x) => x.name === '__heap_base'),
                                                                 name: '__stack_pointer' }]));
    const memory = new WebAssembly.Memory({ initial: 1024 });
    const instance = new WebAssembly.Instance(frozen, makeImports(memory, {}));
    expectCheck('a threaded module whose __stack_pointer cannot be set',
                () => checkInstanceExports(instance, 'model.threads.wasm', true),
                /model\.threads\.wasm exports __stack_pointer as a global that cannot be set/);
  }
  // Threads in a page that is not cross-origin isolated (Node has no such page).
  try {
    await tensorir.load({ modelUrl: url(`${small}/model.json`), threads: 2 });
    report(false, 'two threads without shared memory', 'loaded');
  } catch (e) {
    report(e instanceof tensorir.TensorirError && /cross-origin isolated/.test(e.message),
           'two threads without shared memory', e.message);
  }
  // A worker of its own, where there are no Web Workers (Node).
  try {
    await tensorir.load({ modelUrl: url(`${small}/model.json`), worker: true });
    report(false, 'a model worker without Web Workers', 'loaded');
  } catch (e) {
    report(e instanceof tensorir.TensorirError && /needs Web Workers/.test(e.message),
           'a model worker without Web Workers', e.message);
  }
  // Bad inputs.
  const model = await tensorir.load(url(`${small}/model.json`));
  const spec = model.inputs[0];
  const count = spec.shape.reduce((a, b) => a * b, 1);
  for (const [what, inputs, pattern] of [
    ['an input of the wrong size', { [spec.name]: new Float32Array(count + 1) }, /has \d+ values/],
    ['an unknown input', { [spec.name]: new Float32Array(count), nope: new Float32Array(1) }, /no input "nope"/],
    ['a missing input', {}, /is missing/],
  ]) {
    try {
      await model.run(inputs);
      report(false, what, 'ran');
    } catch (e) {
      report(e instanceof tensorir.TensorirError && pattern.test(e.message), what, e.message);
    }
  }
  model.dispose();
  try {
    await model.run(model.randomInputs(0));
    report(false, 'running a disposed model', 'ran');
  } catch (e) {
    report(e instanceof tensorir.TensorirError && /disposed/.test(e.message), 'running a disposed model', e.message);
  }
  rmSync(scratch, { recursive: true, force: true });

  if (indexDir) {
    server.mount('/index/', indexDir);
    const names = readdirSync(indexDir).filter((n) => existsSync(join(indexDir, n, 'model.json'))).sort();
    if (!names.length) report(false, 'index packages', `none in ${indexDir}`);
    for (const name of names) {
      const test = JSON.parse(readFileSync(join(indexDir, name, 'test.json'), 'utf8'));
      const at = `${server.url}/index/${name}/model.json`;
      try {
        const model = await tensorir.load(at);
        const got = (await model.run({ [test.input]: floats(join(indexDir, name, 'test_input.bin')) }))[test.output];
        const want = floats(join(indexDir, name, 'test_expected.bin'));
        let maxAbs = 0, maxRef = 0;
        for (let i = 0; i < want.length; ++i) {
          maxAbs = Math.max(maxAbs, Math.abs(got[i] - want[i]));
          maxRef = Math.max(maxRef, Math.abs(want[i]));
        }
        const choice = model.choice || {};
        report(choice.backend === 'wasm' && model.backend === 'wasm' && maxAbs / maxRef <= test.tolerance,
               `index package ${name}`, `chose ${choice.backend} (${choice.reason}), max rel err ` +
               `${(maxAbs / maxRef).toExponential(2)}`);
        model.dispose();
      } catch (e) {
        report(false, `index package ${name}`, e.message);
      }
      for (const [what, backend, pattern] of [['its webgl build without WebGL2', 'webgl', /canvas|WebGL2/],
                                              ['a build it lacks', 'gpu', /has no "gpu" build; it has webgl and wasm/]]) {
        try {
          await tensorir.load({ modelUrl: at, backend });
          report(false, `index package ${name}: ${what}`, 'loaded');
        } catch (e) {
          report(e instanceof tensorir.TensorirError && pattern.test(e.message), `index package ${name}: ${what}`,
                 e.message);
        }
      }
    }
    // An index naming an index.
    const nested = mkdtempSync(join(tmpdir(), 'tensorir-index-'));
    writeFileSync(join(nested, 'model.json'), JSON.stringify(
      { format: 'tensorir-index', version: 1, packages: [{ backend: 'wasm', model: 'model.json' }] }));
    server.mount('/nested/', nested);
    try {
      await tensorir.load(`${server.url}/nested/model.json`);
      report(false, 'an index naming an index', 'loaded');
    } catch (e) {
      report(e instanceof tensorir.TensorirError && /index inside a package index/.test(e.message),
             'an index naming an index', e.message);
    }
    rmSync(nested, { recursive: true, force: true });
  }

  if (lookupDir) {
    // y = where(mask, x, table[ids]) with a table of 10 rows; the mask is all false.
    server.mount('/lookup/', lookupDir);
    const model = await tensorir.load(`${server.url}/lookup/model.json`);
    const x = new Float32Array(24).fill(0.5), mask = new Uint8Array(24);
    const run = async (ids) => (await model.run({ x, mask, ids: BigInt64Array.from(ids) })).y;
    const rows = await run([9n, 0n, 3n]), wrapped = await run([-1n, -10n, -7n]);
    report(model.backend === 'wasm' && rows.every((v, i) => v === wrapped[i]) && rows.some((v) => v !== 0.5),
           'lookup: negative ids count from the end', `${model.backend}, ${rows.slice(0, 3).join(', ')}`);
    for (const ids of [[0n, 10n, 1n], [0n, 1n, -11n], [2n ** 32n, 0n, 0n]]) {
      try {
        await run(ids);
        report(false, `lookup with ids ${ids.join(', ')}`, 'ran');
      } catch (e) {
        report(e instanceof tensorir.TensorirError && /take 'rows': an index in 'ids' is outside \[-10, 10\)/.test(e.message),
               `lookup with ids ${ids.join(', ')}`, e.message);
      }
    }
    const after = await run([9n, 0n, 3n]);
    report(after.every((v, i) => v === rows[i]), 'lookup: the model runs again after a failed run');
    model.dispose();
  }
} finally {
  await server.close();
}

// WebAssembly modules taken apart and put together: unsigned LEB128 and the export section
// (section 7: a count, then per export its name, its kind (0 function, 1 table, 2 memory,
// 3 global) and its index).
function readLeb(bytes, at) {
  let value = 0, shift = 0, b;
  do {
    b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [value, at];
}
function leb(value) {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value) b |= 0x80;
    out.push(b);
  } while (value);
  return out;
}
function wasmName(s) {
  return [...leb(Buffer.byteLength(s)), ...Buffer.from(s)];
}
function section(id, payload) {
  return [id, ...leb(payload.length), ...payload];
}

// `wasm` with its exports [{name, kind, index}] replaced by edit(exports).
function rewriteExports(wasm, edit) {
  const out = [...wasm.subarray(0, 8)];
  for (let at = 8; at < wasm.length;) {
    const id = wasm[at];
    const [size, start] = readLeb(wasm, at + 1);
    let payload = [...wasm.subarray(start, start + size)];
    if (id === 7) {
      let [count, p] = readLeb(payload, 0);
      const exports = [];
      while (count--) {
        const [len, q] = readLeb(payload, p);
        const name = Buffer.from(payload.slice(q, q + len)).toString();
        const kind = payload[q + len];
        let index;
        [index, p] = readLeb(payload, q + len + 1);
        exports.push({ name, kind, index });
      }
      const edited = edit(exports);
      payload = [...leb(edited.length), ...edited.flatMap((e) => [...wasmName(e.name), e.kind, ...leb(e.index)])];
    }
    out.push(...section(id, payload));
    at = start + size;
  }
  return Buffer.from(out);
}

// A module of its own: imports env.memory, exports `kernel` (returning 0), a function
// table and __heap_base, a global of type `heapType` (0x7f i32, 0x7e i64).
function handWrittenModule(kernel, heapType) {
  const heapInit = heapType === 0x7e ? [0x42, 0x80, 0x08] : [0x41, 0x80, 0x08];  // i64/i32.const 1024
  return Buffer.from([
    0, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),                          // (i32) -> i32
    ...section(2, [1, ...wasmName('env'), ...wasmName('memory'), 2, 0, 1]),  // env.memory, 1 page
    ...section(3, [1, 0]),
    ...section(4, [1, 0x70, 0, 0]),                                        // funcref table
    ...section(6, [1, heapType, 0, ...heapInit, 0x0b]),
    ...section(7, [3, ...wasmName(kernel), 0, 0, ...wasmName('__indirect_function_table'), 1, 0,
                   ...wasmName('__heap_base'), 3, 0]),
    ...section(10, [1, 4, 0, 0x41, 0, 0x0b]),                              // return 0
  ]);
}

// model.wasm replaced by `wasm`, with its size and checksum in model.json.
function writeModule(d, wasm) {
  writeFileSync(join(d, 'model.wasm'), wasm);
  const j = JSON.parse(readFileSync(join(d, 'model.json'), 'utf8'));
  j.module.bytes = wasm.length;
  j.module.fnv1a32 = fnv(wasm);
  writeFileSync(join(d, 'model.json'), JSON.stringify(j));
}

// An edit of a package: its model.wasm's exports rewritten.
function editWasm(edit) {
  return (d) => writeModule(d, rewriteExports(readFileSync(join(d, 'model.wasm')), edit));
}

function fnv(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
  return '0x' + (h >>> 0).toString(16).padStart(8, '0');
}

console.log(failed ? `\n${failed} check(s) failed` : '\nall wasm checks passed');
process.exit(failed ? 1 : 0);
