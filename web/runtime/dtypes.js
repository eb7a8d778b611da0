// The dtypes a package's inputs and outputs may have, and the typed array run() takes and
// gives for each: the user's array goes in unchanged (a BigInt64Array for int64 token ids,
// a Uint8Array for a bool mask), whatever the backend stores.
import { check } from './errors.js';

const ARRAYS = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array };

export const IO_DTYPES = Object.keys(ARRAYS);

export function isIoDtype(dtype) {
  return Object.prototype.hasOwnProperty.call(ARRAYS, dtype);
}

export function ioArray(dtype) {
  check(isIoDtype(dtype), () => `dtype ${JSON.stringify(dtype)} is not one of ${IO_DTYPES.join(', ')}`);
  return ARRAYS[dtype];
}

export function ioBytes(dtype) {
  return ioArray(dtype).BYTES_PER_ELEMENT;
}

// `data` (a typed array or an array of numbers, bigints or booleans) as the array of `dtype`.
export function toIoArray(data, dtype, what) {
  const Array_ = ioArray(dtype);
  if (data instanceof Array_) return data;
  check(ArrayBuffer.isView(data) || Array.isArray(data), `${what} must be a ${Array_.name}`);
  const values = Array.from(data);
  if (dtype === 'int64') {
    return BigInt64Array.from(values, (v) => {
      check(Number.isInteger(Number(v)) || typeof v === 'bigint', `${what} holds ${v}, which is not an integer`);
      return BigInt(v);
    });
  }
  if (dtype === 'int32') {
    return Int32Array.from(values, (v) => {
      const n = Number(v);
      check(Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31, `${what} holds ${v}, which is not an int32`);
      return n;
    });
  }
  return Array_.from(values, (v) => (dtype === 'bool' ? (v ? 1 : 0) : Number(v)));
}

// The largest integer magnitude float32 holds exactly.
const EXACT_IN_FLOAT = 2 ** 24;

// An input as the float32 a texture stores (a WebGL2 package stores bool and integer
// inputs so, and its shaders convert them back), refusing an integer float32 would round.
export function asFloat32(data, what) {
  if (data instanceof Float32Array) return data;
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; ++i) {
    const v = Number(data[i]);
    check(Math.abs(v) <= EXACT_IN_FLOAT, () => `${what} holds ${data[i]} at element ${i}; this package stores it ` +
          `as float32, which holds integers up to ${EXACT_IN_FLOAT} exactly: give values within +-${EXACT_IN_FLOAT} ` +
          'or use the wasm build');
    out[i] = v;
  }
  return out;
}

// An output read back from a float32 texture as the array of the dtype it declares: integers
// rounded (a texture's float32 holds them exactly up to 2^24), bool where nonzero.
export function fromFloat32(data, dtype, what) {
  if (dtype === 'float32') return data;
  if (dtype === 'int64') {
    return BigInt64Array.from(data, (v, i) => {
      check(Math.abs(v) < 2 ** 63, () => `${what} is ${v} at element ${i}, which no int64 holds: this package ` +
            'computes int64 tensors in float32 (exact up to 2^24); use the wasm build');
      return BigInt(Math.round(v));
    });
  }
  if (dtype === 'int32') return Int32Array.from(data, (v) => Math.round(v));
  check(dtype === 'bool', () => `dtype ${JSON.stringify(dtype)} is not one of ${IO_DTYPES.join(', ')}`);
  return Uint8Array.from(data, (v) => (v !== 0 ? 1 : 0));
}
