// Opens the RPC page in headless Chromium (llvmpipe) and keeps it open until this process
// gets SIGTERM or SIGINT, then closes the browser. Prints "opened" once the page has
// registered with its proxy (its status says so), the page's console to stderr.
//
//   node test/rpc/open_page.mjs http://127.0.0.1:9190/rpc.html?key=browser [--chromium PATH]
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { importPlaywright, launchBrowser } from '../web/browser.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const url = args.find((a) => !a.startsWith('--'));
const at = args.indexOf('--chromium');
const executable = at >= 0 ? args[at + 1] : (process.env.CHROMIUM || '/usr/bin/chromium');
if (!url) {
  console.error('usage: open_page.mjs URL [--chromium PATH]');
  process.exit(2);
}

const chromium = await importPlaywright(repoRoot);
const browser = await launchBrowser(chromium, { executable, swiftshader: false });
let closing = false;
const close = async () => {
  if (closing) return;
  closing = true;
  await browser.close();
  process.exit(0);
};
process.on('SIGTERM', close);
process.on('SIGINT', close);
try {
  const page = await browser.browser.newPage();
  page.on('console', (m) => console.error(`[page] ${m.text()}`));
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  await page.goto(url);
  // The page's status element reads "registered" once the proxy has it.
  await page.waitForFunction(() => /registered|ready/i.test(document.body.innerText), null, { timeout: 60000 });
  console.log('opened');
} catch (e) {
  console.error(`open_page: ${e.message}`);
  await browser.close();
  process.exit(1);
}
