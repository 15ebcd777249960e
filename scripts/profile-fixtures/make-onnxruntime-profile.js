// Writes fixtures/profiles/onnxruntime-tinynet.json: a REAL ONNX Runtime
// profiling JSON (SessionOptions.enableProfiling) of a tiny convolutional
// model built here with onnx-proto, run 5 times on the CPU execution
// provider. Not part of the test suite's runs: run once, by hand, with
//   cd "$(mktemp -d)" && npm install --ignore-scripts onnxruntime-node@1.30 onnx-proto
//   NODE_PATH=$PWD/node_modules node /path/to/make-onnxruntime-profile.js OUT.json
// (onnxruntime-node's install script fetches CUDA parts; the CPU library
// ships in the package, so --ignore-scripts is enough). node_modules stays
// out of the repository.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');
const { onnx } = require('onnx-proto');

const FLOAT = onnx.TensorProto.DataType.FLOAT, INT64 = onnx.TensorProto.DataType.INT64;

// Deterministic weights: no randomness, so a re-run builds the same model.
function tensor(name, dims, fill) {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = fill(i);
  return onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: Buffer.from(data.buffer) });
}
function int64s(name, values) {
  return onnx.TensorProto.create({ name, dims: [values.length], dataType: INT64, int64Data: values });
}
function info(name, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } },
  });
}
const ints = (name, v) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: v });
const node = (opType, name, input, output, attribute = []) => onnx.NodeProto.create({ opType, name, input, output, attribute });

const graph = onnx.GraphProto.create({
  name: 'tinynet',
  node: [
    node('Conv', 'conv1', ['x', 'w1', 'b1'], ['c1'], [ints('pads', [1, 1, 1, 1]), ints('kernel_shape', [3, 3])]),
    node('Relu', 'relu1', ['c1'], ['r1']),
    node('MaxPool', 'pool1', ['r1'], ['p1'], [ints('kernel_shape', [2, 2]), ints('strides', [2, 2])]),
    node('Transpose', 'to_nhwc', ['p1'], ['t1'], [ints('perm', [0, 2, 3, 1])]),
    node('Reshape', 'flatten', ['t1', 'shape'], ['f1']),
    node('MatMul', 'fc1', ['f1', 'w2'], ['m1']),
    node('Add', 'fc1_bias', ['m1', 'b2'], ['a1']),
    node('Gemm', 'fc2', ['a1', 'w3', 'b3'], ['logits']),
    node('Softmax', 'softmax', ['logits'], ['y']),
  ],
  initializer: [
    tensor('w1', [16, 3, 3, 3], (i) => Math.sin(i) * 0.1), tensor('b1', [16], (i) => 0.01 * i),
    int64s('shape', [1, 16 * 16 * 16]),
    tensor('w2', [4096, 64], (i) => Math.cos(i) * 0.01), tensor('b2', [64], (i) => 0.001 * i),
    tensor('w3', [64, 10], (i) => Math.sin(2 * i) * 0.1), tensor('b3', [10], () => 0),
  ],
  input: [info('x', [1, 3, 32, 32])],
  output: [info('y', [1, 10])],
});
const model = onnx.ModelProto.create({
  irVersion: 8, producerName: 'harness scripts/profile-fixtures', opsetImport: [{ domain: '', version: 17 }], graph,
});

async function main() {
  const out = process.argv[2] || 'onnxruntime-tinynet.json';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ortprof-'));
  const modelPath = path.join(dir, 'tinynet.onnx');
  fs.writeFileSync(modelPath, onnx.ModelProto.encode(model).finish());
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', executionMode: 'sequential',
    intraOpNumThreads: 1, enableProfiling: true, profileFilePrefix: path.join(dir, 'profile'),
  });
  const x = new Float32Array(3 * 32 * 32).map((_, i) => Math.sin(i / 7));
  for (let run = 0; run < 5; ++run) await session.run({ x: new ort.Tensor('float32', x, [1, 3, 32, 32]) });
  session.endProfiling();
  await session.release();
  const written = fs.readdirSync(dir).filter((f) => f.startsWith('profile') && f.endsWith('.json'));
  if (written.length !== 1) throw new Error(`expected one profile in ${dir}, found ${written}`);
  fs.copyFileSync(path.join(dir, written[0]), out);
  console.log(`wrote ${out} (onnxruntime-node ${require('onnxruntime-node/package.json').version})`);
}
main().catch((e) => { console.error(e); process.exit(1); });
