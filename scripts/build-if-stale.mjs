// Builds dist/ when it is missing or older than any file in src/ (or the build config), so
// that `npm start` and `npm run cli` work on a fresh clone and stay instant afterwards.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const stamp = join(root, 'dist', '.tsbuildinfo');

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
};
const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (max, entry) => Math.max(max, entry.isDirectory() ? newest(join(dir, entry.name)) : mtime(join(dir, entry.name))),
    -1,
  );

const sources = Math.max(newest(join(root, 'src')), mtime(join(root, 'tsconfig.json')), mtime(join(root, 'tsconfig.build.json')));
if (mtime(stamp) < sources) {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
}
