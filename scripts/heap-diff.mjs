#!/usr/bin/env node
/* global process, console */
// Compare two V8 heap snapshots of the same process (node --heapsnapshot-signal=SIGUSR2, or
// `npm run bench:soak -- --heap-snapshots DIR`), taken after warm-up and later:
//   node --max-old-space-size=4096 scripts/heap-diff.mjs <before.heapsnapshot> <after.heapsnapshot> [--top 30] [--retainers NAME] [--depth 6]
// Prints, by constructor (V8 node type + name):
//   1. count and self size in each snapshot and the growth, largest growth first;
//   2. the objects present only in the later snapshot (new node ids) that are still alive, grouped the same way
//      (objects created after the first snapshot and kept: what a leak looks like);
//   3. with --retainers NAME: for the new objects of that constructor, their retaining paths
//      (up to --depth edges towards a GC root), most common first, so the holder is named.
import fs from 'node:fs';

const args = process.argv.slice(2);
const files = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
if (files.length !== 2) {
  console.error('usage: node scripts/heap-diff.mjs <before.heapsnapshot> <after.heapsnapshot> [--top 30] [--retainers NAME] [--depth 6]');
  process.exit(2);
}
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const top = Number(opt('top', 30));
const retainersOf = opt('retainers', null);
const depth = Number(opt('depth', 6));

/** Reads a snapshot into flat arrays: type, name, id, self size per node; edges with their owners. */
function load(file) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  const nodeTypes = meta.node_types[nf.indexOf('type')];
  const edgeTypes = meta.edge_types[ef.indexOf('type')];
  const N = nf.length;
  const E = ef.length;
  const [iType, iName, iId, iSize, iEdges] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) => nf.indexOf(f));
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f));
  const count = raw.nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += raw.nodes[i * N + iEdges];
    firstEdge[i + 1] = e;
  }
  const node = (i) => ({ type: nodeTypes[raw.nodes[i * N + iType]], name: raw.strings[raw.nodes[i * N + iName]], id: raw.nodes[i * N + iId], size: raw.nodes[i * N + iSize] });
  return { raw, N, E, count, firstEdge, node, edgeTypes, eType, eName, eTo };
}

/** The group a node counts under: its constructor for objects, else its V8 type (strings, closures by name, arrays, code...). */
function groupOf(n) {
  if (n.type === 'object' || n.type === 'closure' || n.type === 'native') return `${n.type}:${n.name}`;
  if (n.type === 'string' || n.type === 'concatenated string' || n.type === 'sliced string') return '(string)';
  return `(${n.type})${n.type === 'hidden' || n.type === 'array' || n.type === 'code' ? ` ${n.name.slice(0, 40)}` : ''}`;
}

function summarize(snap, only) {
  const groups = new Map();
  for (let i = 0; i < snap.count; i++) {
    const n = snap.node(i);
    if (only && !only(n)) continue;
    const k = groupOf(n);
    const g = groups.get(k) ?? { count: 0, size: 0 };
    g.count++;
    g.size += n.size;
    groups.set(k, g);
  }
  return groups;
}

const kib = (b) => (b / 1024).toFixed(1);
const pad = (s, n) => String(s).padStart(n);

const before = load(files[0]);
const ids = new Set();
for (let i = 0; i < before.count; i++) ids.add(before.node(i).id);
const a = summarize(before);
const totalA = [...a.values()].reduce((s, g) => s + g.size, 0);
before.raw = null;

const after = load(files[1]);
const b = summarize(after);
const totalB = [...b.values()].reduce((s, g) => s + g.size, 0);
console.log(`heap (self sizes): ${kib(totalA)} KiB -> ${kib(totalB)} KiB (${totalB >= totalA ? '+' : ''}${kib(totalB - totalA)} KiB); nodes ${before.count} -> ${after.count}\n`);

const rows = [...new Set([...a.keys(), ...b.keys()])].map((k) => {
  const x = a.get(k) ?? { count: 0, size: 0 };
  const y = b.get(k) ?? { count: 0, size: 0 };
  return { k, c0: x.count, c1: y.count, s0: x.size, s1: y.size, ds: y.size - x.size, dc: y.count - x.count };
});
console.log('1. growth by constructor (self size), largest first');
console.log(`${pad('count before', 13)} ${pad('after', 9)} ${pad('Δcount', 9)} ${pad('KiB before', 11)} ${pad('after', 9)} ${pad('ΔKiB', 9)}  constructor`);
for (const r of rows.sort((p, q) => q.ds - p.ds).slice(0, top)) {
  console.log(`${pad(r.c0, 13)} ${pad(r.c1, 9)} ${pad(r.dc, 9)} ${pad(kib(r.s0), 11)} ${pad(kib(r.s1), 9)} ${pad(kib(r.ds), 9)}  ${r.k}`);
}

const fresh = summarize(after, (n) => !ids.has(n.id));
console.log('\n2. objects only in the later snapshot (allocated after the first and still alive), largest first');
console.log(`${pad('count', 9)} ${pad('KiB', 9)}  constructor`);
for (const [k, g] of [...fresh.entries()].sort((p, q) => q[1].size - p[1].size).slice(0, top)) console.log(`${pad(g.count, 9)} ${pad(kib(g.size), 9)}  ${k}`);

if (retainersOf) {
  // Reverse edges once (weak edges left out: they do not retain).
  const { raw, N, E, count, firstEdge, node, edgeTypes, eType, eName, eTo } = after;
  const retainers = Array.from({ length: count }, () => []);
  for (let i = 0; i < count; i++) {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e++) {
      const type = edgeTypes[raw.edges[e * E + eType]];
      if (type === 'weak') continue;
      const to = raw.edges[e * E + eTo] / N;
      const nameOrIndex = raw.edges[e * E + eName];
      const label = type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : type === 'internal' || type === 'property' || type === 'context' || type === 'shortcut' ? raw.strings[nameOrIndex] : type;
      retainers[to].push([i, label]);
    }
  }
  const paths = new Map();
  let matched = 0;
  for (let i = 0; i < count; i++) {
    const n = node(i);
    if (ids.has(n.id) || groupOf(n) !== retainersOf) continue;
    matched++;
    // Follow the first non-system retainer upwards, so each object yields one readable path.
    const steps = [];
    let at = i;
    const seen = new Set([i]);
    for (let d = 0; d < depth; d++) {
      const next = retainers[at].find(([from]) => !seen.has(from) && node(from).type !== 'synthetic') ?? retainers[at].find(([from]) => !seen.has(from));
      if (!next) break;
      const [from, label] = next;
      seen.add(from);
      steps.push(`${groupOf(node(from))}.${label}`);
      at = from;
    }
    const key = steps.join('  <-  ');
    paths.set(key, (paths.get(key) ?? 0) + 1);
  }
  console.log(`\n3. retaining paths of the ${matched} new ${retainersOf} objects (holder first, towards a root), most common first`);
  for (const [p, c] of [...paths.entries()].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${pad(c, 7)}  ${retainersOf}  <-  ${p}`);
}
