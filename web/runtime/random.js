// Seeded uniform float32 values, bit-identical to the C++ NDArray::random(shape, Float(32), seed,
// low, high): element i is splitmix64(seed + (i + 1) * golden) mapped to [low, high). The 64-bit
// arithmetic is done on 32-bit halves, which is far faster than BigInt for whole images.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// Low 64 bits of a * b for 64-bit a = (ah, al) and b = (bh, bl); returns [hi, lo] as uint32.
function mul64(ah, al, bh, bl) {
  // al * bl needs its full 64 bits: split both into 16-bit parts.
  const a0 = al & 0xffff, a1 = al >>> 16, b0 = bl & 0xffff, b1 = bl >>> 16;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;  // each < 2^32, exact
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);      // < 3 * 2^16
  const lo = ((mid & 0xffff) << 16 | (p00 & 0xffff)) >>> 0;
  const carry = Math.floor(mid / 65536) + Math.floor(p01 / 65536) + Math.floor(p10 / 65536) + p11;
  const hi = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
  return [hi, lo];
}

function add64(ah, al, bh, bl) {
  const lo = al + bl;
  return [(ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0, lo >>> 0];
}

// z ^ (z >> s) for 0 < s < 32.
function xorShift(h, l, s) {
  return [(h ^ (h >>> s)) >>> 0, (l ^ ((l >>> s) | (h << (32 - s)))) >>> 0];
}

// The seed as [hi, lo] uint32 halves; accepts a Number (integer in [0, 2^53)) or a BigInt.
export function seedHalves(seed) {
  if (typeof seed === 'bigint') {
    const s = BigInt.asUintN(64, seed);
    return [Number(s >> 32n), Number(s & 0xffffffffn)];
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new Error(`tensorir: random seed must be a non-negative integer, got ${seed}`);
  }
  return [Math.floor(seed / 4294967296) >>> 0, seed >>> 0];
}

// The 64 random bits of element `index` as [hi, lo].
export function randomBits(seed, index) {
  const [sh, sl] = seedHalves(seed);
  return bitsAt(sh, sl, index);
}

function bitsAt(sh, sl, index) {
  const i = index + 1;  // index < 2^53, so (index + 1) splits exactly
  let [zh, zl] = mul64(Math.floor(i / 4294967296) >>> 0, i >>> 0, 0x9e3779b9, 0x7f4a7c15);
  [zh, zl] = add64(sh, sl, zh, zl);
  [zh, zl] = xorShift(zh, zl, 30);
  [zh, zl] = mul64(zh, zl, 0xbf58476d, 0x1ce4e5b9);
  [zh, zl] = xorShift(zh, zl, 27);
  [zh, zl] = mul64(zh, zl, 0x94d049bb, 0x133111eb);
  return xorShift(zh, zl, 31);
}

// The float32 neighbour of v toward -inf or +inf (std::nextafter on float).
function nextFloat(v, up) {
  if (v === 0) return up ? 1.401298464324817e-45 : -1.401298464324817e-45;
  f32[0] = v;
  u32[0] += (v > 0) === up ? 1 : -1;
  return f32[0];
}

// A Float32Array of `count` values equal to NDArray::random(shape, Float(32), seed, low, high)
// for any shape with `count` elements (the default range is [-1, 1) as in C++).
export function randomFloat32(count, seed, low = -1, high = 1) {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new Error(`tensorir: random element count must be a non-negative integer, got ${count}`);
  }
  if (!Number.isFinite(low) || !Number.isFinite(high) || !(low < high)) {
    throw new Error(`tensorir: random needs finite bounds with low < high, got [${low}, ${high})`);
  }
  const [sh, sl] = seedHalves(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; ++i) {
    const [h, l] = bitsAt(sh, sl, i);
    // (bits >> 11) * 2^-53: the top 53 bits, exact in a double.
    const unit = (h * 2097152 + (l >>> 11)) * 1.1102230246251565e-16;
    let v = Math.fround(low + (high - low) * unit);
    if (v >= high) v = nextFloat(v, false);
    if (v < low) v = nextFloat(v, true);
    out[i] = v;
  }
  return out;
}

// An array of `count` integers equal to NDArray::random(shape, Int(64), seed, low, high) for
// integers low < high at most 2^21 apart: element i is low + floor(bits * (high - low) / 2^64),
// the C++ multiply-shift, done on the 32-bit halves (each product below 2^53, so exact).
export function randomIntegers(count, seed, low, high) {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new Error(`tensorir: random element count must be a non-negative integer, got ${count}`);
  }
  const span = high - low;
  if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || !(span > 0 && span <= 2097152)) {
    throw new Error(`tensorir: random integers need integer bounds low < high at most 2^21 apart, got [${low}, ${high})`);
  }
  const [sh, sl] = seedHalves(seed);
  const out = new Array(count);
  for (let i = 0; i < count; ++i) {
    const [h, l] = bitsAt(sh, sl, i);
    out[i] = low + Math.floor((h * span + Math.floor((l * span) / 4294967296)) / 4294967296);
  }
  return out;
}
