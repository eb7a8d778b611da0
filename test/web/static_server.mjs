// A static file server on 127.0.0.1 (random port) for the browser tests. `mounts` maps URL
// prefixes ("/pkg/0/") to directories; a longer prefix wins, so "/pkg/0/tensorir/" can point
// at another runtime than the package's own copy.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.json': 'application/json; charset=utf-8',
  '.bin': 'application/octet-stream', '.wasm': 'application/wasm', '.png': 'image/png', '.jpg': 'image/jpeg',
  '.css': 'text/css; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
};

function lookup(mounts, urlPath) {
  let best = null;
  for (const [prefix, dir] of mounts) {
    if (urlPath.startsWith(prefix) && (!best || prefix.length > best[0].length)) best = [prefix, dir];
  }
  if (!best) return null;
  const rel = normalize(urlPath.slice(best[0].length) || 'index.html');
  if (rel.startsWith('..') || rel.includes(`${sep}..${sep}`)) return null;
  return join(best[1], rel);
}

// `isolated` (default true) sends COOP/COEP, making the pages cross-origin isolated.
// `upgrade(req, socket)`, if given, takes WebSocket upgrades (a stand-in proxy).
export function startServer(mounts, { isolated = true, upgrade = null } = {}) {
  const table = new Map(mounts);
  const server = createServer((req, res) => {
    let file = null;
    try {
      file = lookup(table, decodeURIComponent(new URL(req.url, 'http://x').pathname));
      if (file && statSync(file).isDirectory()) file = join(file, 'index.html');
      if (file && !statSync(file).isFile()) file = null;
    } catch {
      file = null;
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] || 'application/octet-stream',
      'content-length': statSync(file).size, 'cache-control': 'no-store',
      // Cross-origin isolated pages have shared memory: WebAssembly packages use threads.
      ...(isolated ? { 'cross-origin-opener-policy': 'same-origin',
                       'cross-origin-embedder-policy': 'require-corp' } : {}),
    });
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
  if (upgrade) server.on('upgrade', upgrade);
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        mount(prefix, dir) { table.set(prefix, dir); },
        close() {
          server.closeAllConnections();
          return new Promise((r) => server.close(() => r()));
        },
      });
    });
  });
}
