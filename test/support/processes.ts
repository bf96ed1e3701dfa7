import { ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';

export const DIST = join(__dirname, '..', '..', 'dist');

export interface CliResult {
  code: number;
  /** The signal that ended it, if one did. */
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Runs the built operator CLI (`node dist/cli.js ...`) with this environment; `input` goes to its standard input. */
export function runCli(args: string[], env: Record<string, string>, cwd?: string, input = ''): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(DIST, 'cli.js'), ...args],
      { env: { PATH: process.env.PATH, ...env }, cwd },
      (error, stdout, stderr) => {
        const failure = error as { code?: number; signal?: string | null } | null;
        resolve({ code: failure ? Number(failure.code ?? 1) : 0, signal: failure?.signal ?? null, stdout, stderr });
      },
    );
    child.stdin!.end(input);
  });
}

/** Starts the built server (`node dist/main.js`, after `nodeArgs`); `output` collects stdout and stderr. */
export function startServer(
  env: Record<string, string>,
  cwd?: string,
  nodeArgs: readonly string[] = [],
): { child: ChildProcess; output: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...nodeArgs, join(DIST, 'main.js')], {
    env: { PATH: process.env.PATH, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Polls `url` until it answers 200, or fails after `timeoutMs`. */
export async function waitForHealthy(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not healthy after ${timeoutMs}ms`);
}

/**
 * The built card processor simulator (`node dist/processor-simulator.js`, docs/api.md 6.1) on a free
 * port, once it has printed its `{"port": N}` line: its base URL, and how to stop it.
 */
export async function startProcessorSimulator(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(DIST, 'processor-simulator.js')], {
    env: { PATH: process.env.PATH, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let printed = '';
    child.stdout!.on('data', (chunk) => {
      printed += String(chunk);
      if (printed.includes('\n')) resolve(printed.slice(0, printed.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`the processor simulator exited with ${code} before listening`)));
  });
  const { port } = JSON.parse(line) as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
