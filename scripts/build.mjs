// The production build, as nest-cli.json describes it: tsc compiles the source root with its
// tsConfigPath into build/ (CommonJS, one file per module), then rolldown bundles the entry
// files (the application's `main`, the `cli` project's and the `processor-simulator` project's)
// into dist/main.js, dist/cli.js and dist/processor-simulator.js (ES modules).
//
// Why bundle: the NestJS 12 packages are ES modules loaded file by file, and resolving and
// loading those hundreds of modules was most of the cold start (docs/performance.md).
//
// The packages the bundle imports from node_modules at run time go to dist/runtime-packages.json:
// the production image ships them, with their own dependencies, and nothing else of node_modules
// (scripts/runtime-files.mjs).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rolldown } from 'rolldown';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const nest = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
const entryFiles = [nest.entryFile, ...Object.values(nest.projects ?? {}).map((project) => project.entryFile)];

rmSync(join(root, 'build'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, nest.compilerOptions.tsConfigPath)], {
  stdio: 'inherit',
});

const externals = {
  // Left outside the bundle and loaded from node_modules: better-sqlite3 (a native addon) and
  // swagger-ui-dist (served from its own directory).
  runtime: [/^better-sqlite3($|\/)/, /^swagger-ui-dist($|\/)/],
  // Left outside and never loaded here, so not shipped: the optional Nest packages this service
  // does not install (Nest loads them behind a guard), and typescript and prettier (which
  // nest-commander's helpers load only for features the CLI does not use).
  optional: [/^@nestjs\/(microservices|websockets)($|\/)/, /^@fastify\//, /^typescript($|\/)/, /^prettier($|\/)/],
};
// The packages of the externals rolldown met in the code, not every name a pattern could match.
const met = { runtime: new Set(), optional: new Set() };
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const bundle = await rolldown({
  input: Object.fromEntries(entryFiles.map((entry) => [entry, join(root, 'build', `${entry}.js`)])),
  platform: 'node',
  external: (id) => {
    const kind = Object.keys(externals).find((key) => externals[key].some((pattern) => pattern.test(id)));
    if (kind) met[kind].add(packageName(id));
    return kind !== undefined;
  },
  logLevel: 'silent',
});
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);
// keepNames: Nest and the OpenAPI document use class names (providers, DTO schemas).
await bundle.write({ dir: dist, format: 'es', entryFileNames: '[name].js', keepNames: true, sourcemap: true });
await bundle.close();
writeFileSync(join(dist, 'package.json'), '{ "type": "module" }\n');

writeFileSync(
  join(dist, 'runtime-packages.json'),
  `${JSON.stringify({ imported: [...met.runtime].sort(), optional: [...met.optional].sort() }, null, 2)}\n`,
);
