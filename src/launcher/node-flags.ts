/**
 * The V8 flags the service's processes (`relay api`, `relay worker`, `relay start`) run with.
 *
 * Node starts the young generation small (1 MiB semi-spaces) and doubles it under load up to
 * 16 MiB semi-spaces (32 MiB of new space) over the first tens of minutes; each doubling is a
 * permanent step in RSS that looks like a leak on a soak's graph (docs/internals/delivery.md "Memory").
 * Starting at the size it ends at anyway gives the same steady state, at once. Only the command
 * line can set these (Node refuses `--min-semi-space-size` in NODE_OPTIONS), so the package's
 * scripts and the Dockerfile spell them out; node-flags.test.ts keeps those copies equal to this.
 */
export const SERVICE_NODE_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=16'] as const;
