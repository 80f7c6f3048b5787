import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDelivery } from '../src/formatting/format-delivery';
import { metaFor, paymentPayload, paymentTemplate, pushPayload, pushTemplate } from '../src/formatting/golden-fixtures';
import { type ChatPlatform, clearTemplateCache, renderMessage } from '../src/formatting/index';
import { clearTransformCache, runTransform } from '../src/transforms/transform-runner';
import { writeBenchSection } from './bench-output';

/**
 * Formatting cost per delivery: renders/s of a typical template per chat
 * platform and transforms/s of a typical JSONata expression, each with the
 * compiled-template/expression caches warm ("cached") and cleared before every
 * call ("uncached"), plus a whole formatting step (transform + render).
 * Pure CPU: no PostgreSQL, no Temporal.
 *
 *   node bin/relay.js bench render [--seconds 1]
 *
 * Writes bench/results/render.json and the `## Render` section of docs/benchmarks.md.
 */

const REPO = path.resolve(__dirname, '..');

interface Row {
  name: string;
  cache: 'cached' | 'uncached';
  ops_per_second: number;
  wall_us_per_op: number;
  cpu_us_per_op: number;
}

function arg(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

/**
 * Runs `fn` in batches for `seconds` after a short warm-up. Returns calls per
 * wall-clock second and CPU microseconds per call (the latter is the better
 * figure on a shared, busy machine).
 */
async function measure(seconds: number, fn: () => unknown): Promise<{ opsPerSecond: number; cpuUs: number }> {
  const runFor = async (ms: number) => {
    let calls = 0;
    const cpu = process.cpuUsage();
    const start = performance.now();
    while (performance.now() - start < ms) {
      for (let i = 0; i < 50; i++) {
        const r = fn();
        if (r instanceof Promise) await r;
      }
      calls += 50;
    }
    const used = process.cpuUsage(cpu);
    return { opsPerSecond: calls / ((performance.now() - start) / 1000), cpuUs: (used.user + used.system) / calls };
  };
  await runFor(Math.min(300, seconds * 300));
  return runFor(seconds * 1000);
}

const TRANSFORM = `{
  "repo": repository.full_name,
  "branch": $substringAfter(ref, "refs/heads/"),
  "count": $count(commits),
  "authors": $distinct(commits.author.name),
  "commits": commits.{ "id": $substring(id, 0, 7), "title": $substringBefore(message & "\\n", "\\n") }
}`;

export async function main(args: string[]): Promise<void> {
  const seconds = Number(arg(args, 'seconds', '1'));
  const rows: Row[] = [];
  const record = (name: string, cache: Row['cache'], { opsPerSecond, cpuUs }: { opsPerSecond: number; cpuUs: number }) => {
    const row = {
      name,
      cache,
      ops_per_second: Math.round(opsPerSecond),
      wall_us_per_op: Number((1e6 / opsPerSecond).toFixed(1)),
      cpu_us_per_op: Number(cpuUs.toFixed(1)),
    };
    rows.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
  };

  const pushMeta = metaFor('push');
  const cases: Array<[string, ChatPlatform, Record<string, unknown>, unknown]> = [
    ['render chat_b embed (push, v2)', 'chat_b', pushTemplate, pushPayload],
    ['render chat_a blocks (push, v2)', 'chat_a', pushTemplate, pushPayload],
    ['render chat_c telegram_html (push, v2)', 'chat_c', pushTemplate, pushPayload],
    ['render chat_a auto-converted embed (payment, v1)', 'chat_a', paymentTemplate, paymentPayload],
    ['render chat_c auto-converted embed (payment, v1)', 'chat_c', paymentTemplate, paymentPayload],
  ];
  for (const [name, platform, templateConfig, payload] of cases) {
    const render = () => renderMessage({ platform, templateConfig, payload, meta: pushMeta });
    record(name, 'cached', await measure(seconds, render));
    record(name, 'uncached', await measure(seconds, () => (clearTemplateCache(), render())));
  }

  const transform = () => runTransform(TRANSFORM, pushPayload);
  record('transform (JSONata, push reshaped)', 'cached', await measure(seconds, transform));
  record('transform (JSONata, push reshaped)', 'uncached', await measure(seconds, () => (clearTransformCache(), transform())));

  record(
    'whole formatting step: transform + chat_b render',
    'cached',
    await measure(seconds, () =>
      formatDelivery({
        destinationType: 'chat_b',
        templateConfig: { title: '{{ .Payload.repo }}: {{ .Payload.count }} commits to {{ .Payload.branch }}', description: '{{ range .Payload.commits }}`{{ .id }}` {{ .title }}\n{{ end }}' },
        transformExpression: TRANSFORM,
        payload: pushPayload,
        meta: pushMeta,
      }),
    ),
  );

  fs.mkdirSync(path.join(REPO, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(
    path.join(REPO, 'bench', 'results', 'render.json'),
    JSON.stringify({ at: new Date().toISOString(), node: process.version, cpus: os.cpus().length, load_average: os.loadavg()[0], seconds_per_row: seconds, results: rows }, null, 2) + '\n',
  );

  const table = [
    '| what | compiled cache | ops/s | wall µs/op | CPU µs/op |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.name} | ${r.cache} | ${r.ops_per_second.toLocaleString('en-US')} | ${r.wall_us_per_op} | ${r.cpu_us_per_op} |`),
  ].join('\n');
  const section = [
    '## Render (`npm run bench:render`)',
    '',
    `Formatting alone, in one process (no database, no Temporal): ${seconds} s per row after a warm-up, Node ${process.version}, ` +
      `${os.cpus().length} cores at load average ${os.loadavg()[0].toFixed(1)} when measured, ${new Date().toISOString().slice(0, 10)}. ` +
      '"cached" is the steady state of a worker (compiled templates and JSONata expressions are kept in bounded LRU caches); ' +
      '"uncached" clears the cache before every call, i.e. the first use of a template or expression. ' +
      'CPU µs/op (process CPU time per call) is the steadier figure when the machine is busy. ' +
      'Templates and payloads are the formatting tests\' golden fixtures.',
    '',
    table,
  ].join('\n');
  writeBenchSection('render', section);
}
