import { createHash } from 'node:crypto';

/**
 * The inferred shape of one source's events of one type (docs/schemas.md): a tree with one node per
 * JSON path, each counting how often it was present, with which JSON types, and when it was first and
 * last seen. Learning one event walks it once (bounded: depth, nodes, array elements) into an
 * observation, then `learn` merges the observation into the tree and, once the shape is warm, says what
 * the event changed: paths added, paths removed (present in every event so far) and paths whose type
 * changed. A stream merge of our own: the inference libraries build one schema from samples and keep
 * no counts or times, which drift detection needs.
 */

export const JSON_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'object', 'array'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** Limits of one event's walk, and of one shape's size (docs/schemas.md "Limits"). */
export const SHAPE_LIMITS = {
  /** Nesting levels walked; deeper values count as their container's type only. */
  maxDepth: 12,
  /** Values looked at per event; past it the walk stops descending. */
  maxEventNodes: 2_000,
  /** Elements of each array looked at (the first ones). */
  arraySample: 5,
  /** Paths one shape keeps; paths first seen past it are not learned (the shape says `truncated`). */
  maxPaths: 1_000,
  /** Distinct shapes (sets of path and type) one event type keeps an example of. */
  maxShapes: 20,
} as const;

/**
 * One path of the stored shape (short keys: the tree is stored as jsonb, a thousand nodes a shape).
 * Outside arrays a count is of events; under an array, of the (sampled) elements.
 */
export interface ShapeNode {
  /** Times present. */
  n: number;
  /** Times present with each type. */
  t: Partial<Record<JsonType, number>>;
  /** First and last seen (ms since the epoch). */
  f: number;
  l: number;
  /** Object properties. */
  p?: Record<string, ShapeNode>;
  /** Array elements. */
  i?: ShapeNode;
}

/** What one event holds at one path (counts: of elements under an array, else 1). */
export interface Observation {
  count: number;
  types: Partial<Record<JsonType, number>>;
  props?: Map<string, Observation>;
  items?: Observation;
  /** Not walked further (depth or value budget): absent children here mean nothing. */
  cut?: boolean;
}

export interface Retyped {
  path: string;
  from: JsonType[];
  to: JsonType[];
}

export interface Drift {
  added: string[];
  removed: string[];
  retyped: Retyped[];
}

export function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'object':
      return 'object';
    default:
      return 'null';
  }
}

/** Walks a parsed payload into an observation, within SHAPE_LIMITS. */
export function observe(payload: unknown, limits: { maxDepth: number; maxEventNodes: number; arraySample: number } = SHAPE_LIMITS): Observation {
  let budget = limits.maxEventNodes;
  const add = (obs: Observation, value: unknown, depth: number) => {
    const type = jsonType(value);
    obs.count += 1;
    obs.types[type] = (obs.types[type] ?? 0) + 1;
    budget -= 1;
    if (type !== 'object' && type !== 'array') return;
    if (depth >= limits.maxDepth || budget <= 0) {
      obs.cut = true;
      return;
    }
    if (type === 'object') {
      obs.props ??= new Map();
      for (const key of Object.keys(value as object)) {
        if (budget <= 0) {
          obs.cut = true;
          return;
        }
        let child = obs.props.get(key);
        if (!child) obs.props.set(key, (child = empty()));
        add(child, (value as Record<string, unknown>)[key], depth + 1);
      }
    } else {
      const items = value as unknown[];
      for (let k = 0; k < Math.min(items.length, limits.arraySample); k++) {
        if (budget <= 0) {
          obs.cut = true;
          return;
        }
        obs.items ??= empty();
        add(obs.items, items[k], depth + 1);
      }
    }
  };
  const root = empty();
  add(root, payload, 0);
  return root;
}

const empty = (): Observation => ({ count: 0, types: {} });

/** A stable hash of the observation's paths and types (not counts): events of one shape share it. */
export function shapeHash(obs: Observation): string {
  const parts: string[] = [];
  const walk = (o: Observation, path: string) => {
    parts.push(`${path}:${typesOf(o.types).join('|')}`);
    if (o.props) for (const key of [...o.props.keys()].sort()) walk(o.props.get(key)!, childPath(path, key));
    if (o.items) walk(o.items, `${path}[]`);
  };
  walk(obs, '');
  return createHash('sha1').update(parts.join('\n')).digest('hex').slice(0, 16);
}

const SIMPLE_KEY = /^[^.[\]"\s]+$/;

/** `a.b`, `items[].id`; a key with dots, brackets, quotes or spaces (or empty) as `["…"]`. */
export function childPath(parent: string, key: string): string {
  if (!SIMPLE_KEY.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent ? `${parent}.${key}` : key;
}

export function typesOf(t: Partial<Record<JsonType, number>>): JsonType[] {
  return JSON_TYPES.filter((type) => (t[type] ?? 0) > 0);
}

export function countNodes(node: ShapeNode | undefined): number {
  if (!node) return 0;
  let n = 1;
  if (node.p) for (const child of Object.values(node.p)) n += countNodes(child);
  return n + countNodes(node.i);
}

/**
 * Whether `seen` is new for a path that had `known`: integers and other numbers are one kind, and a
 * path seen only as null had no type yet (its first real type is learning, not a change).
 */
function isNewType(seen: JsonType, known: Partial<Record<JsonType, number>>): boolean {
  if ((known[seen] ?? 0) > 0) return false;
  if ((seen === 'integer' && known.number) || (seen === 'number' && known.integer)) return false;
  return typesOf(known).some((type) => type !== 'null');
}

export interface LearnResult {
  /** What the event changed (empty lists while not detecting). */
  drift: Drift;
  /** Paths the shape now holds. */
  paths: number;
  /** Some path of this event was not learned: the shape is full. */
  truncated: boolean;
}

/**
 * Merges one event's observation into `root` (created when null) at time `at`, within `maxPaths`.
 * With `detect`, also says what it changed against the shape before it: added (the topmost new paths
 * that were learned), removed (paths present every time their parent was an object, now absent),
 * retyped (a type never seen at a path that had one). Mutates `root`.
 */
export function learn(root: ShapeNode | null, obs: Observation, at: number, opts: { detect: boolean; paths: number; maxPaths?: number }): { root: ShapeNode; result: LearnResult } {
  const maxPaths = opts.maxPaths ?? SHAPE_LIMITS.maxPaths;
  const drift: Drift = { added: [], removed: [], retyped: [] };
  let paths = opts.paths;
  let truncated = false;

  const create = (o: Observation): ShapeNode | null => {
    if (paths >= maxPaths) {
      truncated = true;
      return null;
    }
    paths += 1;
    const node: ShapeNode = { n: o.count, t: { ...o.types }, f: at, l: at };
    if (o.props) {
      for (const [key, child] of o.props) {
        const made = create(child);
        if (made) (node.p ??= {})[key] = made;
      }
    }
    if (o.items) {
      const made = create(o.items);
      if (made) node.i = made;
    }
    return node;
  };

  const merge = (node: ShapeNode, o: Observation, path: string) => {
    if (opts.detect) {
      const fresh = typesOf(o.types).filter((type) => isNewType(type, node.t));
      if (fresh.length > 0) drift.retyped.push({ path: path || '$', from: typesOf(node.t), to: typesOf(o.types) });
    }
    const objectsBefore = node.t.object ?? 0;
    node.n += o.count;
    for (const type of typesOf(o.types)) node.t[type] = (node.t[type] ?? 0) + o.types[type]!;
    node.l = at;
    if (o.props) {
      for (const [key, child] of o.props) {
        const existing = node.p?.[key];
        if (existing) merge(existing, child, childPath(path, key));
        else {
          const made = create(child);
          if (!made) continue;
          (node.p ??= {})[key] = made;
          if (opts.detect) drift.added.push(childPath(path, key));
        }
      }
    }
    // Removed: required so far (present in every object this node was), and now missing in some object of this event.
    const objectsNow = o.types.object ?? 0;
    if (opts.detect && node.p && objectsNow > 0 && objectsBefore > 0 && !o.cut) {
      for (const [key, child] of Object.entries(node.p)) {
        const present = o.props?.get(key)?.count ?? 0;
        if (child.n - present === objectsBefore && present < objectsNow) drift.removed.push(childPath(path, key));
      }
    }
    if (o.items) {
      if (node.i) merge(node.i, o.items, `${path}[]`);
      else {
        const made = create(o.items);
        if (made) {
          node.i = made;
          if (opts.detect) drift.added.push(`${path}[]`);
        }
      }
    }
  };

  let tree = root;
  if (!tree) {
    // Counted as one path, then filled: the root always exists.
    tree = create(obs) ?? { n: obs.count, t: { ...obs.types }, f: at, l: at };
  } else merge(tree, obs, '');
  return { root: tree, result: { drift, paths, truncated } };
}

export const hasBreakingDrift = (d: Drift) => d.removed.length > 0 || d.retyped.length > 0;
export const hasDrift = (d: Drift) => hasBreakingDrift(d) || d.added.length > 0;

/**
 * Makes a change's new shape the expected one (accepting it): removed paths are forgotten (back, they
 * are additions), a retyped path keeps only its new types (the old ones again are a change).
 */
export function acceptDrift(root: ShapeNode, drift: Pick<Drift, 'removed' | 'retyped'>): ShapeNode {
  for (const path of drift.removed) {
    const found = locate(root, path);
    if (found?.parent?.p && found.key !== undefined) delete found.parent.p[found.key];
    else if (found?.parent && found.key === undefined) delete found.parent.i;
  }
  for (const { path, to } of drift.retyped) {
    const found = locate(root, path === '$' ? '' : path);
    if (!found) continue;
    const keep = new Set<JsonType>(to);
    for (const type of typesOf(found.node.t)) if (!keep.has(type)) delete found.node.t[type];
    if (!keep.has('object')) delete found.node.p;
    if (!keep.has('array')) delete found.node.i;
  }
  return root;
}

/** The node at a path (as childPath writes them), with its parent and key (no key: array elements). */
function locate(root: ShapeNode, path: string): { node: ShapeNode; parent?: ShapeNode; key?: string } | null {
  let node = root;
  let parent: ShapeNode | undefined;
  let key: string | undefined;
  for (const segment of parsePath(path)) {
    parent = node;
    if (segment === null) {
      if (!node.i) return null;
      node = node.i;
      key = undefined;
    } else {
      const next = node.p?.[segment];
      if (!next) return null;
      node = next;
      key = segment;
    }
  }
  return { node, parent, key };
}

/** The segments of a path: keys, and null for `[]`. */
export function parsePath(path: string): Array<string | null> {
  const out: Array<string | null> = [];
  let k = 0;
  while (k < path.length) {
    if (path.startsWith('[]', k)) {
      out.push(null);
      k += 2;
    } else if (path[k] === '[') {
      // A JSON string up to its closing quote and bracket.
      let end = k + 2;
      while (end < path.length && !(path[end] === '"' && path[end - 1] !== '\\' && path[end + 1] === ']')) end++;
      out.push(JSON.parse(path.slice(k + 1, end + 1)) as string);
      k = end + 2;
    } else {
      if (path[k] === '.') k++;
      let end = k;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      out.push(path.slice(k, end));
      k = end;
    }
  }
  return out;
}

/** One row per path, in tree order (the dashboard's table, the API's `paths`). */
export interface PathStats {
  path: string;
  types: Partial<Record<JsonType, number>>;
  count: number;
  /** Of the times its parent was an object (or, for array elements, an array with elements): 1 means always. */
  frequency: number;
  required: boolean;
  first_seen_at: string;
  last_seen_at: string;
}

export function flattenShape(root: ShapeNode): PathStats[] {
  const rows: PathStats[] = [];
  const walk = (node: ShapeNode, path: string, parentCount: number) => {
    rows.push({
      path: path || '$',
      // In JSON_TYPES order (jsonb keeps object keys in its own order).
      types: Object.fromEntries(typesOf(node.t).map((type) => [type, node.t[type]])),
      count: node.n,
      frequency: parentCount > 0 ? Math.min(1, node.n / parentCount) : 1,
      required: parentCount > 0 && node.n >= parentCount,
      first_seen_at: new Date(node.f).toISOString(),
      last_seen_at: new Date(node.l).toISOString(),
    });
    if (node.p) for (const [key, child] of Object.entries(node.p)) walk(child, childPath(path, key), node.t.object ?? 0);
    if (node.i) walk(node.i, `${path}[]`, node.i.n);
  };
  walk(root, '', root.n);
  return rows;
}
