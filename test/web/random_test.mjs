// The JavaScript seeded generator (web/runtime/random.js) against the C++ NDArray::random:
// values and hashes printed by the C++ library, and a BigInt splitmix64 written from scratch.
//   node test/web/random_test.mjs
import { randomBits, randomFloat32, randomIntegers } from '../../web/runtime/random.js';
import { fnv1a32 } from '../../web/runtime/validate.js';

// NDArray::random({n}, Float(32), seed, low, high): FNV-1a of the float bytes, from C++.
const HASHES = [
  [0n, 1000, -1, 1, 0x547979b6],
  [1n, 150528, -1, 1, 0xe830278c],
  [42n, 4096, 0, 255, 0x533aa188],
  [18446744073709551615n, 777, -1, 1, 0x7613cd82],
  [7n, 5000, 0.99999994000000003, 1, 0xc77f6ba5],  // rounding to float lands on `high`
  [9n, 5000, -1, -0.99999994000000003, 0x5d1234fd],  // and below `low`
  [3n, 5000, -9.9999999999999993e-41, 9.9999999999999993e-41, 0x88d1dac9],  // subnormals
];
// NDArray::random({n}, Int(64), seed, low, high): FNV-1a of the int64 bytes, from C++.
const INT_HASHES = [
  [0n, 1000, -1, 1, 0x1885ea9d],
  [1n, 4096, 0, 10, 0x465b8c87],
  [42n, 777, -1000, 1000, 0xc6f33613],
  [18446744073709551615n, 500, -5, 5, 0x7240c009],
  [7n, 3000, 0, 2097152, 0x37fd0acd],
];
// Single elements as float32 bit patterns, from C++ (seed, index, bits).
const VALUES = [
  [0, 0, 0x3f444150], [0, 1, 0xbe0c3b0d], [0, 104, 0x3ea1787d], [42, 50, 0xbe86ff50],
  [123456789012345, 2, 0xbf512994],
];

const MASK = (1n << 64n) - 1n;
function splitmix(seed, index) {
  let z = (seed + (BigInt(index) + 1n) * 0x9e3779b97f4a7c15n) & MASK;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

const failures = [];
for (const [seed, n, low, high, hash] of HASHES) {
  const got = fnv1a32(new Uint8Array(randomFloat32(n, seed, low, high).buffer));
  if (got !== hash) {
    failures.push(`seed ${seed} n ${n} [${low}, ${high}): hash 0x${got.toString(16)}, C++ ` +
                  `0x${hash.toString(16)}`);
  }
}
for (const [seed, n, low, high, hash] of INT_HASHES) {
  const got = fnv1a32(new Uint8Array(BigInt64Array.from(randomIntegers(n, seed, low, high), BigInt).buffer));
  if (got !== hash) {
    failures.push(`integers of seed ${seed} n ${n} [${low}, ${high}): hash 0x${got.toString(16)}, C++ ` +
                  `0x${hash.toString(16)}`);
  }
}
for (const [seed, index, bits] of VALUES) {
  const v = randomFloat32(index + 1, seed)[index];
  const got = new Uint32Array(new Float32Array([v]).buffer)[0];
  if (got !== bits) failures.push(`seed ${seed} element ${index}: ${v}, C++ bits 0x${bits.toString(16)}`);
}
// The 64-bit halves arithmetic against BigInt, including indices near 2^53.
let state = 12345;
const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
for (const seed of [0n, 1n, 0xdeadbeefcafebaben, MASK]) {
  for (let k = 0; k < 5000; ++k) {
    const index = k < 2500 ? k : (next() * 2097152 + (next() >>> 11)) % Number.MAX_SAFE_INTEGER;
    const [hi, lo] = randomBits(seed, index);
    if (((BigInt(hi) << 32n) | BigInt(lo)) !== splitmix(seed, index)) {
      failures.push(`bits of seed ${seed} index ${index} differ from the BigInt reference`);
      break;
    }
  }
}
for (const bad of [() => randomFloat32(3, -1), () => randomFloat32(3, 1, 1, 1), () => randomIntegers(3, 1, 0, 0),
                   () => randomIntegers(3, 1, 0.5, 2), () => randomIntegers(3, 1, 0, 2 ** 22)]) {
  try {
    bad();
    failures.push(`${bad} did not throw`);
  } catch (e) {
    if (!/tensorir: random/.test(e.message)) failures.push(`unclear message: ${e.message}`);
  }
}

if (failures.length) {
  console.log(`FAIL  random: ${failures.length} problem(s)\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`PASS  random: ${HASHES.length + INT_HASHES.length} C++ hashes, ${VALUES.length} C++ values, ` +
            'BigInt reference');
