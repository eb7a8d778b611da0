// Reading NumPy .npy files (format 1.0/2.0, C order, little-endian) into the typed array
// the web runtime takes for that dtype: float32 -> Float32Array, int64 -> BigInt64Array,
// int32 -> Int32Array, bool -> Uint8Array.
import { readFileSync } from 'node:fs';

const ARRAYS = { '<f4': Float32Array, '<i8': BigInt64Array, '<i4': Int32Array, '|b1': Uint8Array, '|u1': Uint8Array };
export const DTYPES = { '<f4': 'float32', '<i8': 'int64', '<i4': 'int32', '|b1': 'bool', '|u1': 'uint8' };

export function readNpy(file) {
  const b = readFileSync(file);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file} is not a .npy file`);
  const major = b[6];
  const headerLen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = b.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] || '').split(',').map((s) => s.trim())
    .filter((s) => s).map(Number);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order is not read`);
  const Array_ = ARRAYS[descr];
  if (!Array_) throw new Error(`${file}: dtype ${descr} is not read (float32, int64, int32 or bool)`);
  const bytes = b.buffer.slice(b.byteOffset + start, b.byteOffset + b.byteLength);
  return { dtype: DTYPES[descr], shape, data: new Array_(bytes) };
}
