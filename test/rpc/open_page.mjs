// Opens the RPC page in headless Chromium (llvmpipe) and keeps it open until this process
// gets SIGTERM or SIGINT, then stops the browser. Prints "opened" once the page has
// registered with its proxy (its /status lists one more remote of the page's key), and
// the page's console to stderr.
//
// Chromium runs as a plain process with the page's address, with no DevTools connection:
// a DevTools client hears every WebSocket frame the page receives, and copying the
// payloads out (a kernel's arguments, megabytes each) took a core away from the kernels
// the page times.
//
//   node test/rpc/open_page.mjs http://127.0.0.1:9190/rpc.html?key=browser [--chromium PATH]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { BASE_FLAGS, LLVMPIPE_FLAGS } from '../web/browser.mjs';

const args = process.argv.slice(2);
const url = args.find((a) => !a.startsWith('--'));
const at = args.indexOf('--chromium');
const executable = at >= 0 ? args[at + 1] : (process.env.CHROMIUM || '/usr/bin/chromium');
if (!url) {
  console.error('usage: open_page.mjs URL [--chromium PATH]');
  process.exit(2);
}
if (!existsSync(executable)) {
  console.error(`open_page: no Chromium at ${executable}; install it (Debian: apt-get install chromium, ` +
                'see scripts/install-deps.sh) or pass --chromium PATH');
  process.exit(1);
}
let page;
try {
  page = new URL(url);
} catch {
  console.error(`open_page: ${url} is not a URL; usage: open_page.mjs URL [--chromium PATH]`);
  process.exit(2);
}
const key = page.searchParams.get('key') || '';
const statusUrl = new URL('/status', page);

// The remotes of the page's key that the proxy lists now.
async function registered() {
  const res = await fetch(statusUrl);
  if (!res.ok) throw new Error(`${statusUrl} answered ${res.status}`);
  const status = await res.json();
  const remotes = Array.isArray(status) ? status : (status.remotes || []);
  return remotes.filter((r) => r.key === key).length;
}

let before;
try {
  before = await registered();
} catch (e) {
  console.error(`open_page: the proxy does not answer at ${statusUrl}: ${e.message}`);
  process.exit(1);
}

// A shader that llvmpipe compiles for tens of seconds (a large unrolled kernel) must not
// get the GPU process killed as hung, nor a lost context turn WebGL off for the page.
const GPU_FLAGS = ['--disable-gpu-watchdog', '--disable-gpu-process-crash-limit', '--disable-hang-monitor',
                   '--disable-domain-blocking-for-3d-apis'];
const profile = mkdtempSync(join(tmpdir(), 'tensorir-rpc-page-'));
const chromium = spawn(executable, [...BASE_FLAGS, ...LLVMPIPE_FLAGS, ...GPU_FLAGS, '--headless',
                                    `--user-data-dir=${profile}`, '--enable-logging=stderr', '--v=0', url],
                       { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
// Console messages come as `...:INFO:CONSOLE(line)] "text", source: ...` (or
// `CONSOLE:line]`); the rest of Chromium's log is noise here.
createInterface({ input: chromium.stderr }).on('line', (line) => {
  const m = /:CONSOLE[(:]\d+\)?\] "(.*)", source:/.exec(line);
  if (m) console.error(`[page] ${m[1]}`);
});

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  try {
    if (chromium.pid) process.kill(-chromium.pid, 'SIGTERM');  // the browser and every process it started
  } catch {}
  setTimeout(() => {
    try {
      if (chromium.pid) process.kill(-chromium.pid, 'SIGKILL');
    } catch {}
    rmSync(profile, { recursive: true, force: true });
    process.exit(code);
  }, 500);
}
chromium.on('error', (e) => {
  console.error(`open_page: Chromium could not be started: ${e.message}`);
  stop(1);
});
// Chromium runs in a process group of its own, which stop() ends; only a SIGKILL of this
// process leaves it running.
chromium.on('exit', (code, signal) => {
  if (stopping) return;
  console.error(`open_page: Chromium exited (${signal || `status ${code}`})`);
  stop(1);
});
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));

const deadline = Date.now() + 60000;
for (;;) {
  let now = 0;
  try {
    now = await registered();
  } catch {}
  if (now > before) break;
  if (Date.now() > deadline) {
    console.error(`open_page: the page did not register with the proxy as "${key}" within 60 s`);
    stop(1);
    break;
  }
  await new Promise((r) => setTimeout(r, 200));
}
if (!stopping) console.log('opened');
