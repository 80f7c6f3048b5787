// Preloaded (`node --require`) into a relay process by tests: on SIGUSR2 the process's main
// JavaScript thread blocks for RELAY_TEST_BLOCK_MS, the way a heap snapshot
// (--heapsnapshot-signal) or a long GC pause blocks it, while its native threads (the
// Temporal SDK's core, its gRPC connection, the workflow thread) keep running; unlike SIGSTOP, which stops them all.
process.on('SIGUSR2', () => {
  const ms = Number(process.env.RELAY_TEST_BLOCK_MS ?? 30000);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
});
