/**
 * The V8 flags the service's processes (`relay api`, `relay worker`, `relay start`) run with.
 *
 * The young generation at a fixed size of 8 MiB semi-spaces (16 MiB of new space), from the start. Fixed: Node
 * starts it small and doubles it under load, each doubling a permanent step in RSS that looks like a leak on
 * a soak's graph (docs/internals/delivery.md "Memory"). 8 rather than the 16 Node grows it to: V8 flags are per process,
 * so the Temporal worker's workflow thread gets the same young generation as the main thread, and 16 cost both
 * of them together about 32 MiB more (bench:user's PSS rows). Only the command line can set these (Node refuses
 * `--min-semi-space-size` in NODE_OPTIONS), so the package's scripts and the Dockerfile spell them out;
 * node-flags.test.ts keeps those copies equal to this.
 */
export const SERVICE_NODE_FLAGS = ['--min-semi-space-size=8', '--max-semi-space-size=8'] as const;
