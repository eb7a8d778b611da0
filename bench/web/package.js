// Reads a tensorir web package's graph section and params.bin in the page, for the peers
// rebuilt from it (the same selection of nodes and output as webpkg.py).

export async function loadPackage(base) {
  const model = await (await fetch(`${base}/model.json`)).json();
  if (model.format !== 'tensorir-web') throw new Error(`${base}/model.json: not a tensorir web model`);
  if (!model.graph || !model.graph.nodes || !model.graph.nodes.length)
    throw new Error(`${base}/model.json has no graph section: the peers are rebuilt from it`);
  const buf = await (await fetch(`${base}/${model.params.file || 'params.bin'}`)).arrayBuffer();
  if (buf.byteLength !== model.params.bytes)
    throw new Error(`params.bin has ${buf.byteLength} bytes, model.json says ${model.params.bytes}`);
  const params = new Map();
  for (const t of model.params.tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    params.set(t.name, {shape: t.shape, data: new Float32Array(buf, t.offset, n)});
  }
  const nodes = model.graph.nodes.filter(n => n.op !== 'input' && n.op !== 'constant');
  const names = new Set(nodes.map(n => n.name));
  const outName = model.outputs[0].name;
  return {
    model, params, nodes,
    input: model.inputs[0],
    output: names.has(outName) ? outName : nodes[nodes.length - 1].name,
  };
}
