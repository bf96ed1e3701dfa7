// Swagger UI shows the event catalogue (docs/api.md 10.11): starts the built server (dist/main.js)
// on a throwaway SQLite database, opens /docs in headless Chromium (Debian's `chromium`, driven
// by playwright-core, which never downloads a browser), and checks that the Webhooks section
// lists every event type of the served document's `webhooks`, each as a POST. Takes a screenshot
// of the section to look at.
//
//   npm run check:swagger-ui [-- SCREENSHOT.png]     default /tmp/swagger-ui-webhooks.png
//
// A script run by hand rather than a test: Chromium is not among the project's packages and
// takes seconds to start. CHROMIUM names another binary than /usr/bin/chromium.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const screenshot = process.argv[2] ?? join(tmpdir(), 'swagger-ui-webhooks.png');
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });

async function untilHealthy(base, server, deadline = Date.now() + 30_000) {
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited with code ${server.exitCode}`);
    const ok = await fetch(`${base}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not answer /health within 30 s');
}

const work = mkdtempSync(join(tmpdir(), 'check-swagger-ui-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [join(root, 'dist/main.js')], {
  cwd: work,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(work, 'db.sqlite')}`, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
let context;
try {
  await untilHealthy(base, server);
  const types = Object.keys((await (await fetch(`${base}/docs/openapi.json`)).json()).webhooks ?? {});
  context = await chromium.launchPersistentContext(join(work, 'chromium'), {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${base}/docs`);
  const section = page.locator('.swagger-ui .webhooks');
  await section.waitFor({ timeout: 15_000 });
  const shown = await section.locator('.opblock').evaluateAll((blocks) =>
    blocks.map((block) => ({
      method: block.querySelector('.opblock-summary-method')?.textContent?.trim(),
      type: block.querySelector('.opblock-summary-path')?.textContent?.trim(),
      summary: block.querySelector('.opblock-summary-description')?.textContent?.trim(),
    })),
  );
  await section.screenshot({ path: screenshot });
  const missing = types.filter((type) => !shown.some((op) => op.type === type && op.method === 'POST'));
  process.stdout.write(`${JSON.stringify({ heading: await section.locator('h2').textContent(), shown, missing, screenshot }, null, 2)}\n`);
  if (types.length === 0 || missing.length > 0) process.exitCode = 1;
} finally {
  await context?.close();
  server.kill('SIGTERM');
  await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once('exit', resolve)));
  rmSync(work, { recursive: true, force: true });
}
