import { randomBytes } from 'node:crypto';

const WORDS = ['fix', 'flaky', 'test', 'in', 'module', 'retry', 'parser', 'cache', 'update', 'docs', 'bump', 'deps', 'refactor', 'handler', 'add', 'metrics'];

/**
 * A push-like body of about `payloadBytes`: nested objects, hex ids, words and numbers, as real
 * webhooks carry (a body of one padded string would hide what parsing or indexing text costs).
 */
export function realisticBody(i: number, payloadBytes: number): string {
  const hex = (n: number) => randomBytes(n).toString('hex');
  const event = { type: 'push', seq: i, ref: 'refs/heads/main', repository: { id: 1000 + (i % 97), name: `repo-${i % 97}`, owner: { login: 'acme' } }, pusher: { name: `user${i % 500}` }, commits: [] as unknown[] };
  for (let c = 0; JSON.stringify(event).length < payloadBytes; c++) {
    const message = Array.from({ length: 6 }, (_, w) => WORDS[(i + c * 7 + w * 3) % WORDS.length]).join(' ');
    event.commits.push({ id: hex(20), message: `${message} (#${i + c})`, timestamp: new Date(1_780_000_000_000 + i * 1000).toISOString(), added: [], modified: [`src/m${c}.ts`] });
  }
  return JSON.stringify(event);
}

/** realisticBody made exactly `bytes` long (at least ~700) by a compare URL of the needed length, as a push carries. */
export function sizedBody(i: number, bytes: number): string {
  const event = JSON.parse(realisticBody(i, bytes - 180)) as Record<string, unknown>;
  const base = `https://example.test/acme/repo-${i % 97}/compare/`;
  const room = bytes - JSON.stringify({ ...event, compare: base }).length;
  return JSON.stringify({ ...event, compare: base + randomBytes(Math.ceil(Math.max(0, room) / 2)).toString('hex').slice(0, Math.max(0, room)) });
}
