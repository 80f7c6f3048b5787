#!/usr/bin/env node
'use strict';
// The image's HEALTHCHECK (Dockerfile): GET /readyz of the relay process the container runs, found in PID 1's
// command line (`relay api` or `relay worker`, directly or under an init such as `docker run --init`):
// `relay api` on PORT, `relay worker` on RELAY_WORKER_METRICS_PORT. Exits 0 on 200, 1 otherwise (PostgreSQL or
// Temporal away, the worker not running, the process draining, or no answer); `relay migrate` and other
// one-shot commands are healthy while they run.
const fs = require('node:fs');

function relayCommand() {
  const args = fs.readFileSync('/proc/1/cmdline', 'utf8').split('\0');
  const entry = args.findIndex((arg) => arg.endsWith('bin/relay.js') || arg === 'relay');
  return entry >= 0 ? args[entry + 1] : undefined;
}

function fail(message) {
  process.stderr.write(`unhealthy: ${message}\n`);
  process.exit(1);
}

const command = relayCommand();
const port = command === 'api' ? process.env.PORT || '3000' : command === 'worker' ? process.env.RELAY_WORKER_METRICS_PORT : null;
if (port === null) process.exit(0);
if (!port) fail('relay worker serves /readyz on RELAY_WORKER_METRICS_PORT, which is not set');
const bound = command === 'api' ? process.env.HOST : process.env.RELAY_METRICS_HOST || process.env.HOST;
const host = !bound || bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound.includes(':') ? `[${bound}]` : bound;

fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(4000) }).then(
  async (res) => {
    const body = await res.text();
    if (res.status !== 200) fail(`relay ${command} /readyz answered ${res.status} ${body}`);
    process.exit(0);
  },
  (err) => fail(`relay ${command} /readyz on ${host}:${port}: ${err.cause?.message ?? err.message}`),
);
