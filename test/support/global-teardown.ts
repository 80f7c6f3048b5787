export default async function globalTeardown(): Promise<void> {
  for (const stop of (globalThis.__relayTestStops ?? []).reverse()) await stop();
}
