// Builds dist/ (scripts/build.mjs) when it is missing or older than any file in src/ or the
// build configuration, so that `npm start`, `npm run cli` and `npm run processor-simulator` work
// on a fresh clone and stay instant afterwards.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

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

const inputs = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'package-lock.json'].map((file) => mtime(join(root, file)));
const built = Math.min(...['main', 'cli', 'processor-simulator'].map((entry) => mtime(join(root, `dist/${entry}.js`))));
if (built < Math.max(newest(join(root, 'src')), ...inputs)) {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
}
