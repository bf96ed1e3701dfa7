// The import graph of src/ has no cycle (issue 21): not between files, not between the
// top-level folders (features and layers), not between the parts of one feature (its
// subfolders, such as delivery/events, delivery/dispatch, delivery/log). A cycle between folders
// is how layering erodes unnoticed: each import looks harmless alone. A feature's own root files
// (its module, which wires its parts, and its model, which they share) are the ground its parts
// stand on, not a part. Run by `npm run lint`. Type-only imports count: they tie the folders'
// meanings together just the same. Specs are outside the graph (test helpers live in test/).
//
// Over the same graph, one rule of direction (issue 31): a file imports the repositories of its
// own top-level folder only. Another feature's data is reached through the port its module
// exports (WebhookAccess, IdentityAccess: an abstract class as the DI token), or the SQL
// fragments its owner lends (check-table-owners.mjs), never through its repository, whose
// methods are its owner's to change.
//
// And one of exports (issue 39): no module exports a service or a repository (a class named
// *Service or *Repository) to another top-level folder. What a module's `exports` list names is
// read from the module itself; each such class's file may be imported from its own top-level
// folder only, so another feature (or the CLI) holds a port shaped by what it calls.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';

const root = fileURLToPath(new URL('..', import.meta.url));
const result = await madge(`${root}src`, {
  fileExtensions: ['ts'],
  tsConfig: `${root}tsconfig.json`,
  excludeRegExp: [/\.spec\.ts$/],
});
// Only src's own files: a spec's helpers (test/support) and package.json are not part of it.
const graph = Object.fromEntries(
  Object.entries(result.obj())
    .filter(([file]) => !file.startsWith('..'))
    .map(([file, imports]) => [file, imports.filter((imported) => !imported.startsWith('..'))]),
);

/** Strongly connected components of more than one node (Tarjan), each as a list of nodes. */
function cycles(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The graph with every file replaced by `unitOf(file)` (undefined: left out), and for each edge a file import that makes it. */
function collapse(unitOf) {
  const edges = new Map();
  const witness = new Map();
  for (const [from, tos] of Object.entries(graph)) {
    for (const to of tos) {
      const [a, b] = [unitOf(from), unitOf(to)];
      if (a === undefined || b === undefined || a === b) continue;
      if (a.includes('/') && topFolder(a) !== topFolder(b)) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a).add(b);
      witness.set(`${a} -> ${b}`, `${from} imports ${to}`);
    }
  }
  return { edges, witness };
}

const topFolder = (file) => (file.includes('/') ? file.split('/')[0] : '(src)');
const problems = [];
for (const cycle of result.circular()) problems.push(`files: ${[...cycle, cycle[0]].join(' -> ')}`);
for (const [from, tos] of Object.entries(graph)) {
  for (const to of tos.filter((to) => to.endsWith('.repository.ts') && topFolder(to) !== topFolder(from))) {
    problems.push(`repositories: ${from} imports ${to} (use the port ${topFolder(to)}/ exports)`);
  }
}
/** Each module's exported classes named *Service or *Repository, with the file that defines each (from the module's own imports). */
function exportedServices() {
  const found = [];
  for (const module of Object.keys(graph).filter((file) => file.endsWith('.module.ts'))) {
    const text = readFileSync(join(root, 'src', module), 'utf8');
    const list = /exports:\s*\[([^\]]*)\]/.exec(text)?.[1] ?? '';
    for (const name of list.match(/\b\w+(?:Service|Repository)\b/g) ?? []) {
      const from = new RegExp(`import\\s*(?:type\\s*)?\\{[^}]*\\b${name}\\b[^}]*\\}\\s*from\\s*'([^']+)'`).exec(text)?.[1];
      if (from === undefined) continue;
      const file = relative(join(root, 'src'), join(root, 'src', dirname(module), `${from}.ts`));
      found.push({ module, name, file });
    }
  }
  return found;
}
for (const { module, name, file } of exportedServices()) {
  const outside = Object.entries(graph).filter(([from, tos]) => tos.includes(file) && topFolder(from) !== topFolder(module));
  for (const [from] of outside)
    problems.push(`exports: ${module} exports ${name}, which ${from} imports (export a port shaped by its callers)`);
}
const levels = {
  folders: topFolder,
  // One feature's parts against each other; imports between features are the level above's.
  parts: (file) => {
    const segments = dirname(file).split('/');
    return segments.length >= 2 ? `${segments[0]}/${segments[1]}` : undefined;
  },
};
for (const [level, unitOf] of Object.entries(levels)) {
  const { edges, witness } = collapse(unitOf);
  for (const cycle of cycles(edges)) {
    const because = cycle.flatMap((a) => cycle.filter((b) => witness.has(`${a} -> ${b}`)).map((b) => `    ${witness.get(`${a} -> ${b}`)}`));
    problems.push(`${level}: ${cycle.join(' <-> ')}\n${because.join('\n')}`);
  }
}
if (problems.length > 0) {
  process.stderr.write(
    `Import cycles, another folder's repository imported, or a service exported across folders, in ${relative(process.cwd(), `${root}src`) || 'src'}:\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
  );
  process.exit(1);
}
