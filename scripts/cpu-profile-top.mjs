#!/usr/bin/env node
/* global process, console */
// Top self-time costs of a V8 .cpuprofile (node --cpu-prof), by function and by package/file:
//   node scripts/cpu-profile-top.mjs <file.cpuprofile> [--top 25] [--per N] [--window FROM_US TO_US]
//   --per: divide by N deliveries, ms each; --window: only samples taken between these CLOCK_MONOTONIC
//   microseconds (the profile's own clock: bench:user prints the delivery phase's as monotonic_window_us).
import fs from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/cpu-profile-top.mjs <file.cpuprofile> [--top 25] [--per N]');
  process.exit(2);
}
const opt = (name, fallback) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
const top = opt('top', 25);
const per = opt('per', 0);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const windowAt = rest.indexOf('--window');
const [from, to] = windowAt >= 0 ? [Number(rest[windowAt + 1]), Number(rest[windowAt + 2])] : [-Infinity, Infinity];
const self = new Map();
for (let i = 0, at = profile.startTime; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  if (at < from || at > to) continue;
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()].filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id).callFrame.functionName)).reduce((a, [, t]) => a + t, 0);
const place = (url) => {
  if (!url) return '(native)';
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith('node:')) return url.split('/')[0];
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(src|activities|workflows|bench)\//, '$1/');
};
const fnKey = (n) => `${n.callFrame.functionName || '(anonymous)'}  ${place(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const sum = (keyOf) => {
  const m = new Map();
  for (const [id, t] of self) {
    const n = byId.get(id);
    if (['(idle)', '(program)'].includes(n.callFrame.functionName)) continue;
    const k = keyOf(n);
    m.set(k, (m.get(k) ?? 0) + t);
  }
  return [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
};
const busy = total - idle;
const fmt = (us) => (per ? `${(us / 1000 / per).toFixed(3)} ms/delivery` : `${(us / 1000).toFixed(0)} ms`);
console.log(`profile: ${(total / 1e6).toFixed(1)} s sampled, busy ${(busy / 1e6).toFixed(1)} s${per ? ` = ${(busy / 1000 / per).toFixed(2)} ms per delivery over ${per}` : ''}`);
console.log('\nby package / file (self time):');
for (const [k, t] of sum((n) => place(n.callFrame.url))) console.log(`  ${((t / busy) * 100).toFixed(1).padStart(5)} %  ${fmt(t).padStart(20)}  ${k}`);
console.log('\nby function (self time):');
for (const [k, t] of sum(fnKey)) console.log(`  ${((t / busy) * 100).toFixed(1).padStart(5)} %  ${fmt(t).padStart(20)}  ${k}`);
