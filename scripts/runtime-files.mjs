// The files of the production image's runtime stage: the bundle (dist/), and the packages it
// imports from node_modules (dist/runtime-packages.json, written by scripts/build.mjs) closed
// over their own dependencies as Node resolves them. Left out: what only building a package
// needs, and source maps (the server runs without --enable-source-maps; Swagger UI works
// without its own).
//
//   node scripts/runtime-files.mjs                  the paths, one a line, from the project root
//   node scripts/runtime-files.mjs --assemble DIR   copies them into DIR (new or empty), prints its size
//
// The Dockerfile's build stage assembles /app/runtime with it; test/operations/runtime-image.e2e-spec.ts
// does the same and runs the server and the CLI from the copy.
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// Where Node finds `name` from `dir`: the nearest node_modules above it.
function locate(name, dir) {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (at === dirname(at)) throw new Error(`${name}, needed from ${relative(root, dir) || '.'}, is not installed`);
  }
}

// Every file under dir, nested packages aside (they count only if something depends on them).
const filesUnder = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split('/').includes('node_modules'));

const codeNames = (dir, name) => {
  const required = new RegExp(`['"\`]${escape(name)}(['"\`]|/)`);
  return filesUnder(dir).some((path) => /\.[cm]?js$/.test(path) && required.test(readFileSync(join(dir, path), 'utf8')));
};

/** The package directories to ship, and the dependencies left out because only an install script runs them. */
function runtimePackages() {
  const { imported } = JSON.parse(readFileSync(join(dist, 'runtime-packages.json'), 'utf8'));
  const found = new Map();
  const installOnly = new Set();
  const visit = (dir) => {
    if (found.has(dir)) return;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    found.set(dir, manifest.name);
    const install = ['preinstall', 'install', 'postinstall'].map((script) => manifest.scripts?.[script] ?? '').join(' ; ');
    const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name);
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optionalPeers.includes(name));
    for (const name of new Set([...Object.keys(manifest.dependencies ?? {}), ...peers])) {
      // What only an install script runs is not loaded at run time (better-sqlite3's
      // prebuild-install, which fetches its binary), unless the code requires it too
      // (node-gyp-build is both the install script and the loader).
      if (new RegExp(`(^|[\\s;&|(])${escape(name)}($|[\\s;&|)])`).test(install) && !codeNames(dir, name)) installOnly.add(name);
      else visit(locate(name, dir));
    }
    for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
      try {
        visit(locate(name, dir));
      } catch {
        // not installed on this platform
      }
    }
  };
  for (const name of imported) visit(locate(name, dist));
  return { packages: [...found.keys()].sort(), installOnly: [...installOnly].sort() };
}

// A native addon needs its compiled .node files, not its C/C++ sources nor node-gyp's build tree
// (objects, and obj.target's second link to each .node).
const BUILD_INPUT = /\.(c|cc|cpp|cxx|h|hh|hpp|gyp|gypi)$/;
const builtAddon = (path) => path.endsWith('.node') && !/\/obj(\.target)?\//.test(path);
const packageFiles = (dir) => {
  const native = existsSync(join(dir, 'binding.gyp'));
  return filesUnder(dir).filter((path) => !native || (path.startsWith('build/') ? builtAddon(path) : !BUILD_INPUT.test(path)));
};

if (!existsSync(join(dist, 'runtime-packages.json'))) throw new Error('dist/runtime-packages.json is missing: run npm run build first');
const { packages, installOnly } = runtimePackages();
const files = [
  ...filesUnder(dist).map((path) => join(dist, path)),
  ...packages.flatMap((dir) => packageFiles(dir).map((path) => join(dir, path))),
]
  .filter((path) => !path.endsWith('.map'))
  .map((path) => relative(root, path));

const [flag, target] = process.argv.slice(2);
if (flag === undefined) {
  process.stdout.write(`${files.join('\n')}\n`);
} else if (flag === '--assemble' && target) {
  const into = resolve(target);
  if (existsSync(into) && readdirSync(into).length > 0) throw new Error(`${into} is not empty`);
  let bytes = 0;
  for (const path of files) {
    mkdirSync(dirname(join(into, path)), { recursive: true });
    cpSync(join(root, path), join(into, path), { verbatimSymlinks: true });
    bytes += lstatSync(join(root, path)).size;
  }
  const names = packages.map((dir) => relative(join(root, 'node_modules'), dir)).join(', ');
  process.stdout.write(`${into}: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB\n`);
  process.stdout.write(
    `packages: ${names}${installOnly.length > 0 ? ` (left out, run only by install scripts: ${installOnly.join(', ')})` : ''}\n`,
  );
} else {
  throw new Error('usage: node scripts/runtime-files.mjs [--assemble DIR]');
}
