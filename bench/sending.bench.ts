import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/config';
import { sendChatMessage } from '../src/sending/chat.sender';
import { closeHttpAgents } from '../src/sending/http-client';
import type { PlatformCooldowns } from '../src/sending/platform-cooldowns';
import type { SendResult } from '../src/sending/send-result';
import { sendWebhook } from '../src/sending/webhook.sender';
import { writeBenchSection } from './bench-output';

/**
 * Outbound send throughput: signed webhook sends and chat sends through the
 * shared keep-alive pools, against a receiver in a child process (so it does
 * not share this event loop). Reports sends/s, latency percentiles and how
 * many TCP connections the receiver saw (pooling at work).
 *
 *   node bin/relay.js bench sending [--requests 5000] [--concurrency 1,16,64]
 */
const RECEIVER = `
const http = require('node:http');
let connections = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url.startsWith('/api/v10/webhooks/') ? '{"id":"1","content":"ok"}' : '{"received":true}');
  });
});
server.on('connection', () => connections++);
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => { if (m === 'count') process.send({ connections }); });
`;

function arg(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

async function run(requests: number, concurrency: number, send: () => Promise<SendResult>) {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) {
        const t = performance.now();
        const result = await send();
        latencies.push(performance.now() - t);
        if (!result.ok) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2));
  return { requests, concurrency, failures, sends_per_second: Math.round(requests / seconds), p50_ms: pct(50), p99_ms: pct(99) };
}

export async function main(args: string[]): Promise<void> {
  const requests = Number(arg(args, 'requests', '5000'));
  const load = os.loadavg()[0].toFixed(1);
  const levels = arg(args, 'concurrency', '1,16,64').split(',').map(Number);
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(msg?: string) => new Promise<T>((resolve) => {
    child.once('message', (m) => resolve(m as T));
    if (msg) child.send(msg);
  });
  const { port } = await ask<{ port: number }>();
  const connections = async () => (await ask<{ connections: number }>('count')).connections;

  const payload = { action: 'opened', repository: { full_name: 'acme/relay', id: 123 }, sender: { login: 'octo' }, body: 'x'.repeat(1500) };
  const webhook = () =>
    sendWebhook({
      url: `http://127.0.0.1:${port}/hook`,
      payload,
      headerPrefix: 'Service',
      eventId: '0190e6c8-0000-7000-8000-000000000001',
      endpointId: '0190e6c8-0000-7000-8000-000000000002',
      signing: { secret: 'whsec_bench_secret_0123456789', previousSecret: 'whsec_bench_previous_0123456' },
      timeoutMs: 30_000,
      allowPrivateNetworks: true,
    });
  const noCooldown = { activeUntil: async () => null, set: async () => undefined } as unknown as PlatformCooldowns;
  const config = loadConfig({ NODE_ENV: 'test' });
  const chat = () =>
    sendChatMessage(
      {
        platform: 'chat_b',
        webhookUrl: `http://127.0.0.1:${port}/api/v10/webhooks/1/token`,
        message: { content: 'New push', embeds: [{ title: 'acme/relay', description: 'x'.repeat(500) }] },
        eventId: 'e',
        timeoutMs: 30_000,
        allowPrivateNetworks: true,
      },
      { config, cooldowns: noCooldown },
    );

  const results: Array<Record<string, unknown>> = [];
  await run(200, 8, webhook); // warm-up
  for (const [kind, send] of [['webhook (signed, overlap: 2 signatures)', webhook], ['chat_b webhook URL', chat]] as const) {
    for (const concurrency of levels) {
      const before = await connections();
      const r = await run(requests, concurrency, send);
      results.push({ kind, ...r, new_connections: (await connections()) - before });
      process.stdout.write(`${JSON.stringify(results.at(-1))}\n`);
    }
  }
  child.kill();
  await closeHttpAgents();

  const root = path.resolve(__dirname, '..');
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bench', 'results', 'sending.json'), JSON.stringify({ at: new Date().toISOString(), node: process.version, load_average: Number(load), results }, null, 2) + '\n');
  const table = [
    '| send | concurrency | sends/s | p50 ms | p99 ms | new TCP connections |',
    '|---|---|---|---|---|---|',
    ...results.map((r) => `| ${r.kind} | ${r.concurrency} | ${r.sends_per_second} | ${r.p50_ms} | ${r.p99_ms} | ${r.new_connections} |`),
  ].join('\n');
  const section = `## Sending (\`node bin/relay.js bench sending\`)\n\n${requests} sends per row to a local receiver in a child process (same machine, 2 cores shared with the bench itself), through the shared keep-alive pools; latency is per send, including signing and the capped body read. Figures from ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, 1-minute load average ${load} at the start (other work on the machine skews them).\n\n${table}`;
  writeBenchSection('sending', section);
}
