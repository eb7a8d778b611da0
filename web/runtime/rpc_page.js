// The socket of the RPC page (rpc.html): it connects back to the proxy that served the page
// (never anywhere else), registers under its key, hands every frame to an RpcHandler one
// at a time and sends the answers; when the socket closes it frees the session and
// connects again after a back-off, so a restarted proxy finds the page again.
import { RpcHandler } from './rpc.js';
import { PROTOCOL_VERSION, decodeFrame, encodeFrame, errorHeader } from './rpc_protocol.js';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10000;

// The proxy's WebSocket: the host and port that served the page.
export function proxyUrl(loc = location) {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/`;
}

export class RpcPage {
  // onStatus(status, detail): status is "connecting", "registered", "busy" or "closed".
  constructor({ key, token = '', handler = null, onStatus = () => {}, log = () => {} }) {
    this.key = key;
    this.token = token;
    this.log = log;
    this.onStatus = onStatus;
    this.handler = handler || new RpcHandler({ log });
    this.retryMs = FIRST_RETRY_MS;
    this.queue = Promise.resolve();
    this.socket = null;
    this.stopped = false;
    this.inSession = false;
  }

  setStatus(status, detail = '') {
    this.status = status;
    this.onStatus(status, detail);
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close();
  }

  connect() {
    const url = proxyUrl();
    this.setStatus('connecting', url);
    let socket;
    try {
      socket = new WebSocket(url);
    } catch (e) {
      this.log(`cannot open ${url}: ${e.message}`);
      this.retry();
      return;
    }
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      this.log(`connected to ${url}; registering as "${this.key}"`);
      this.send({ type: 'register', v: PROTOCOL_VERSION, key: this.key, token: this.token, info: this.handler.info() });
    };
    socket.onmessage = (event) => {
      this.queue = this.queue.then(() => this.receive(event.data));
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.inSession = false;
      // Whatever a client had made here goes with the connection.
      this.queue = this.queue.then(() => {
        const freed = this.handler.reset();
        if (freed) this.log(`freed ${freed}`);
      });
      this.setStatus('closed', event.reason || `code ${event.code}`);
      this.retry();
    };
  }

  retry() {
    if (this.stopped) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    this.log(`connecting again in ${(wait / 1000).toFixed(1)} s`);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  send(header, payload) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(encodeFrame(header, payload));
  }

  async receive(data) {
    if (typeof data === 'string') {
      this.send(errorHeader(null, 'RPC: a text WebSocket message is a protocol error; frames are binary'));
      return;
    }
    let frame;
    try {
      frame = decodeFrame(data);
    } catch (e) {
      this.log(e.message);
      this.send(errorHeader(null, e.message.replace(/^tensorir: /, '')));
      if (this.socket) this.socket.close();
      return;
    }
    const h = frame.header;
    if (h.type === 'registered') {
      this.retryMs = FIRST_RETRY_MS;
      this.setStatus('registered', this.key);
      this.log(`registered as "${this.key}"`);
      return;
    }
    // Busy from "open" to "close": a client holds the page.
    if (h.type === 'open' || h.type === 'close') this.inSession = h.type === 'open';
    const status = this.inSession ? 'busy' : 'registered';
    if (h.type === 'request') this.setStatus(status, `${h.op} (request ${h.id})`);
    const reply = await this.handler.handle(frame);
    if (reply) this.send(reply.header, reply.payload);
    if (['open', 'close', 'request'].includes(h.type)) {
      this.setStatus(status, this.inSession ? `a client is connected; last request ${h.op || 'none'}` : this.key);
    }
  }
}
