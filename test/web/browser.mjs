// Headless Chromium through playwright-core, with a hard stop: the browser runs as a server
// process we hold the id of, so a hung renderer or GPU process is killed, never left behind.
import { existsSync } from 'node:fs';

export const BASE_FLAGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
                    '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'];
// Mesa llvmpipe through ANGLE on EGL: several times faster than SwiftShader, max texture 16384.
export const LLVMPIPE_FLAGS = ['--use-angle=gl-egl', '--ignore-gpu-blocklist'];

export async function importPlaywright(repoRoot) {
  try {
    return (await import('playwright-core')).chromium;
  } catch (e) {
    throw new Error(`playwright-core is not installed (${e.code || e.message}); run ` +
                    `\`npm ci\` in ${repoRoot} (scripts/install-deps.sh does it)`);
  }
}

export async function launchBrowser(chromium, { executable, swiftshader }) {
  if (!existsSync(executable)) {
    throw new Error(`no Chromium at ${executable}; install it (Debian: apt-get install chromium, ` +
                    `see scripts/install-deps.sh) or pass --chromium PATH`);
  }
  const args = swiftshader ? BASE_FLAGS : [...BASE_FLAGS, ...LLVMPIPE_FLAGS];
  const server = await chromium.launchServer({ executablePath: executable, headless: true, args,
                                               timeout: 60000 });
  let browser;
  try {
    browser = await chromium.connect(server.wsEndpoint(), { timeout: 60000 });
  } catch (e) {
    await server.kill();
    throw e;
  }
  return {
    browser,
    async close() {
      // A polite close first; a browser that does not answer in 10 s is killed.
      const polite = (async () => {
        await browser.close().catch(() => {});
        await server.close();
      })();
      let handle;
      const timer = new Promise((r) => { handle = setTimeout(r, 10000, 'timeout'); });
      const how = await Promise.race([polite, timer]);
      clearTimeout(handle);
      if (how === 'timeout') await server.kill();
    },
    kill: () => server.kill(),
  };
}
