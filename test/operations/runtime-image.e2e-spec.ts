import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, mariadbAvailable } from '../support/databases';
import { freePort } from '../support/ports';
import { waitForHealthy } from '../support/processes';

// The production image without Docker (no daemon here): the runtime stage's files, assembled by
// scripts/runtime-files.mjs as the Dockerfile's build stage does, in a folder with no
// node_modules above it; the server (the Dockerfile's CMD) and the CLI run from there.

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** The exec-form instructions of the runtime stage: CMD, and the HEALTHCHECK's own CMD (indented). */
const instruction = (pattern: RegExp): string[] => JSON.parse(pattern.exec(DOCKERFILE)![1]) as string[];
const CMD = instruction(/^CMD (\[.*\])$/m);
const HEALTHCHECK = instruction(/^\s+CMD (\[.*\])$/m);

describe('the runtime image', () => {
  let dir: string;
  let app: string;
  let env: Record<string, string>;
  let server: ChildProcess | undefined;

  /** Runs node (the image's, here this one) in the folder, as the image's user would. */
  const node = (args: string[], extra: Record<string, string> = {}) => run(process.execPath, args, { cwd: app, env: { ...env, ...extra } });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-api-image-'));
    app = join(dir, 'app');
    const { stdout } = await run(process.execPath, ['scripts/runtime-files.mjs', '--assemble', app], { cwd: ROOT });
    mkdirSync(join(app, 'data')); // the runtime stage's RUN mkdir
    const { stdout: du } = await run('du', ['-sh', app]);
    process.stdout.write(`\n[runtime-image] ${stdout}[runtime-image] du -sh: ${du}`);
    env = { PATH: process.env.PATH ?? '', NODE_ENV: 'production', SECRET_KEY: randomBytes(32).toString('base64') };
  });

  afterAll(() => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('is what the Dockerfile copies, with no node_modules above it to borrow from', () => {
    expect(DOCKERFILE).toMatch(/^RUN .*node scripts\/runtime-files\.mjs --assemble \/app\/runtime$/m);
    expect(DOCKERFILE).toMatch(/^COPY --from=build \/app\/runtime \.\/$/m);
    for (let at = dirname(app); at !== dirname(at); at = dirname(at)) expect(existsSync(join(at, 'node_modules')), at).toBe(false);
  });

  it('holds the packages the bundle imports and their dependencies, not the optional ones, the install-time ones or source maps', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'dist/runtime-packages.json'), 'utf8')) as {
      imported: string[];
      optional: string[];
    };
    const shipped = readdirSync(join(app, 'node_modules'));
    expect(shipped).toEqual(expect.arrayContaining([...manifest.imported, 'bindings', 'file-uri-to-path']));
    expect(manifest.optional).toEqual(expect.arrayContaining(['@nestjs/microservices', 'prettier', 'typescript']));
    for (const absent of [...manifest.optional, 'prebuild-install', 'mysql2', 'typeorm', '@nestjs'])
      expect(shipped).not.toContain(absent.split('/')[0]);
    expect(readdirSync(app, { recursive: true }).filter((path) => String(path).endsWith('.map'))).toEqual([]);
  });

  it('serves /health, Swagger UI and the OpenAPI document as the CMD starts it, and the HEALTHCHECK passes', async () => {
    const port = String(await freePort());
    const [, ...args] = CMD;
    server = spawn(process.execPath, args, { cwd: app, env: { ...env, PORT: port, HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    server.stdout!.on('data', (chunk) => output.push(String(chunk)));
    server.stderr!.on('data', (chunk) => output.push(String(chunk)));
    const base = `http://127.0.0.1:${port}`;
    await waitForHealthy(`${base}/health`).catch((error: Error) => {
      throw new Error(`${error.message}; output: ${output.join('')}`, { cause: error });
    });

    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    const asset = /src="\.\/docs\/(swagger-ui-bundle\.js)"/.exec(await docs.text());
    expect(asset, 'Swagger UI page').not.toBeNull();
    expect((await fetch(`${base}/docs/${asset![1]}`)).status).toBe(200); // from swagger-ui-dist
    const openapi = await fetch(`${base}/docs/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(await openapi.json()).toHaveProperty('openapi');

    const [, ...check] = HEALTHCHECK;
    await expect(node(check, { PORT: port })).resolves.toBeDefined(); // exit 0

    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  });

  it('runs the CLI on SQLite', async () => {
    const { stdout } = await node(['dist/cli.js', 'org', 'create', '--name', 'X']);
    expect(JSON.parse(stdout)).toEqual({ id: 1 });
  });

  // TypeORM would require mysql2 by name from node_modules; the bundle carries it instead.
  it.skipIf(!mariadbAvailable())('runs the CLI on MariaDB', async () => {
    const database = await createTestDatabase('mariadb');
    try {
      const { stdout } = await node(['dist/cli.js', 'org', 'create', '--name', 'X'], { DATABASE_URL: database.url });
      expect(JSON.parse(stdout)).toEqual({ id: 1 });
    } finally {
      await database.drop();
    }
  });
});
