// The frames of tensorir's RPC protocol (docs/rpc.md), as lib/rpc/protocol.cpp writes
// them: "TRPC", the header's length (u32 little-endian), a JSON header, a binary payload.
import { check } from './errors.js';

export const PROTOCOL_VERSION = 2;
const MAGIC = [0x54, 0x52, 0x50, 0x43];  // "TRPC"

// One message's bytes: `header` an object with a string "type", `payload` bytes or nothing.
export function encodeFrame(header, payload) {
  const text = new TextEncoder().encode(JSON.stringify(header));
  const body = payload ? asBytes(payload) : new Uint8Array(0);
  const out = new Uint8Array(8 + text.length + body.length);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(4, text.length, true);
  out.set(text, 8);
  out.set(body, 8 + text.length);
  return out;
}

// {header, payload} of a message (an ArrayBuffer or a view); a TensorirError saying what
// is wrong with one that is not a frame.
export function decodeFrame(message) {
  const bytes = asBytes(message);
  check(bytes.length >= 8, () => `RPC: a message of ${bytes.length} bytes is not a frame (a frame has at least 8: ` +
                                 '"TRPC" and a length)');
  check(MAGIC.every((b, i) => bytes[i] === b),
        'RPC: a message that does not start with "TRPC" is not a frame of this protocol');
  const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
  check(n <= bytes.length - 8, () => `RPC: a frame's header length (${n} bytes) runs past the end of its ` +
                                     `${bytes.length}-byte message`);
  let header = null;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch {
    header = null;
  }
  check(header !== null && typeof header === 'object' && !Array.isArray(header) && typeof header.type === 'string',
        'RPC: a frame\'s header is not a JSON object with a string "type"');
  return { header, payload: bytes.subarray(8 + n) };
}

export function errorHeader(id, message) {
  return { type: 'error', id: id === undefined ? null : id, message };
}

// A Uint8Array over an ArrayBuffer or any view, without copying.
export function asBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  check(false, 'RPC: a payload must be bytes (an ArrayBuffer or a typed array)');
  return null;
}
