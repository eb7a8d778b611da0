// The server side of a WebSocket (RFC 6455) for tests that stand in for the RPC proxy:
// the handshake, then whole binary and text messages (a fragmented one joined), pings
// answered, close. `accept(req, socket)` is for an HTTP server's "upgrade" event.
import { createHash } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function header(opcode, length) {
  if (length < 126) return Buffer.from([0x80 | opcode, length]);
  if (length < 65536) {
    const h = Buffer.from([0x80 | opcode, 126, 0, 0]);
    h.writeUInt16BE(length, 2);
    return h;
  }
  const h = Buffer.alloc(10);
  h[0] = 0x80 | opcode;
  h[1] = 127;
  h.writeBigUInt64BE(BigInt(length), 2);
  return h;
}

// Returns {send(bytes), sendText(text), close(), messages: an async queue}; each message is
// {binary: bool, data: Buffer}; `closed` resolves when the connection ends.
export function accept(req, socket) {
  const key = req.headers['sec-websocket-key'];
  const digest = createHash('sha1').update(key + GUID).digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
               `Sec-WebSocket-Accept: ${digest}\r\n\r\n`);
  const waiting = [], queued = [];
  let buffer = Buffer.alloc(0), parts = [], partOpcode = 0, ended = false, onClosed;
  const closed = new Promise((r) => { onClosed = r; });
  const deliver = (m) => (waiting.length ? waiting.shift()(m) : queued.push(m));
  const write = (opcode, data) => {
    if (!socket.destroyed) socket.write(Buffer.concat([header(opcode, data.length), data]));
  };
  const end = () => {
    if (ended) return;
    ended = true;
    while (waiting.length) waiting.shift()(null);
    onClosed();
  };
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      const fin = buffer[0] & 0x80, opcode = buffer[0] & 0x0f, masked = buffer[1] & 0x80;
      let length = buffer[1] & 0x7f, at = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        at = 10;
      }
      const mask = masked ? buffer.subarray(at, at + 4) : null;
      if (masked) at += 4;
      if (buffer.length < at + length) return;
      const data = Buffer.from(buffer.subarray(at, at + length));
      if (mask) for (let i = 0; i < data.length; ++i) data[i] ^= mask[i & 3];
      buffer = buffer.subarray(at + length);
      if (opcode === 8) {
        write(8, Buffer.alloc(0));
        socket.end();
        end();
        return;
      }
      if (opcode === 9) write(10, data);
      if (opcode === 0 || opcode === 1 || opcode === 2) {
        if (opcode !== 0) partOpcode = opcode;
        parts.push(data);
        if (fin) {
          deliver({ binary: partOpcode === 2, data: Buffer.concat(parts) });
          parts = [];
        }
      }
    }
  });
  socket.on('close', end);
  socket.on('error', end);
  return {
    send: (bytes) => write(2, Buffer.from(bytes)),
    sendText: (text) => write(1, Buffer.from(text)),
    close: () => {
      write(8, Buffer.alloc(0));
      socket.end();
      setTimeout(() => socket.destroy(), 1000).unref();
    },
    // The next message, or null once the connection has ended.
    next: () => (queued.length ? Promise.resolve(queued.shift()) : ended ? Promise.resolve(null)
                                                                         : new Promise((r) => waiting.push(r))),
    closed,
  };
}
