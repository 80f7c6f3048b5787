import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody } from '../src/http/json-body';

/**
 * What ingress's nesting-depth check costs beside the parse it follows: CPU microseconds per call
 * of `nestsDeeperThan` and of the whole `parseJsonBody` (UTF-8 check, decode, JSON.parse, depth
 * check) on a 1 KiB push-like body, a 1 MiB body of such objects, and a 1 MiB array of numbers
 * (no strings to skip). Pure CPU, no services.
 *
 *   node bin/relay.js bench json-depth [--seconds 1]
 */

const push = {
  ref: 'refs/heads/main',
  before: 'a'.repeat(40),
  after: 'b'.repeat(40),
  repository: { id: 1, name: 'relay', full_name: 'acme/relay', owner: { login: 'acme', id: 2, url: 'https://api.example/users/acme' }, private: false },
  pusher: { name: 'dev', email: 'dev@example.com' },
  commits: [{ id: 'c'.repeat(40), message: 'Fix the thing\n\n"Quoted" [text] {braces}', timestamp: '2026-01-01T00:00:00Z', modified: ['src/a.ts'] }],
};

function bodies(): Array<[string, Buffer]> {
  const kib = JSON.stringify({ ...push, pad: 'x'.repeat(1024 - JSON.stringify({ ...push, pad: '' }).length) });
  const objects: unknown[] = [];
  while (JSON.stringify(objects).length < 1 << 20) objects.push(push);
  const numbers: number[] = [];
  for (let i = 0; JSON.stringify(numbers).length < 1 << 20; i++) numbers.push(i * 1.25, -i, 1e21 + i);
  return [
    ['1 KiB push', Buffer.from(kib)],
    ['1 MiB of pushes', Buffer.from(JSON.stringify(objects))],
    ['1 MiB of numbers', Buffer.from(JSON.stringify(numbers))],
  ];
}

/** CPU microseconds per call of `fn`, over `seconds` after a warm-up of a tenth of that. */
function cpuMicros(fn: () => void, seconds: number): number {
  const run = (ms: number) => {
    const start = process.cpuUsage();
    const until = performance.now() + ms;
    let calls = 0;
    while (performance.now() < until) {
      fn();
      calls++;
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / calls;
  };
  run(seconds * 100);
  return run(seconds * 1000);
}

export async function main(args: string[]): Promise<void> {
  const i = args.indexOf('--seconds');
  const seconds = i >= 0 ? Number(args[i + 1]) : 1;
  const rows = bodies().map(([name, raw]) => {
    const depth = cpuMicros(() => nestsDeeperThan(raw, MAX_JSON_DEPTH), seconds);
    const parse = cpuMicros(() => parseJsonBody(raw), seconds);
    return { body: name, bytes: raw.length, depth_check_cpu_us: Number(depth.toFixed(2)), parse_json_body_cpu_us: Number(parse.toFixed(2)), share: `${((100 * depth) / parse).toFixed(1)} %` };
  });
  console.table(rows);
}
