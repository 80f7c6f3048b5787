import type { AppContainer } from '../../src/app/container';
import { gql } from '../support/api';
import { eventually, liveClient } from '../support/live-client';
import type { CliForwardView } from '../../src/cli-sessions/cli-tunnel';

/**
 * What `relay listen` does over the wire, for tests: start a session
 * (GraphQL over HTTP), hold the `cliForwards` subscription (graphql-ws), and
 * answer each forward with `reportCliForward`.
 */
export const START_SESSION = `mutation($input: StartCliSessionInput!) {
  startCliSession(input: $input) { destination { id name type } sources { slug } transformName templateName delayMs }
}`;

export const REPORT = 'mutation($input: CliForwardResultInput!) { reportCliForward(input: $input) }';

const FORWARDS = `subscription($d: ID!) {
  cliForwards(destinationId: $d) { id eventId deliveryId attemptNumber eventType sourceSlug receivedAt method headers body delayMs }
}`;

export type Forward = CliForwardView;

export async function startSession(baseUrl: string, token: string, input: Record<string, unknown>): Promise<{ destinationId: string; name: string }> {
  const res = await gql(baseUrl, START_SESSION, { input }, { token });
  if (res.errors) throw new Error(`startCliSession: ${JSON.stringify(res.errors)}`);
  return { destinationId: res.data.startCliSession.destination.id, name: res.data.startCliSession.destination.name };
}

export async function report(baseUrl: string, token: string, input: Record<string, unknown>): Promise<boolean> {
  const res = await gql(baseUrl, REPORT, { input }, { token });
  if (res.errors) throw new Error(`reportCliForward: ${JSON.stringify(res.errors)}`);
  return res.data.reportCliForward;
}

export async function presenceRows(container: AppContainer, destinationId: string): Promise<number> {
  const { rows } = await container.orm.em.getConnection().getKnex().raw('select count(*)::int as n from cli_sessions where destination_id = ?', [destinationId]);
  return rows[0].n;
}

export interface Listener {
  next(timeoutMs?: number): Promise<Forward>;
  /** Resolves when the server ends the subscription. */
  ended: Promise<void>;
  close(): Promise<void>;
}

/** Subscribes and resolves once this subscription's presence row exists (from then on the CLI counts as connected). */
export async function listen(baseUrl: string, token: string, container: AppContainer, destinationId: string): Promise<Listener> {
  const before = await presenceRows(container, destinationId);
  const { client } = liveClient(baseUrl, token);
  const forwards: Forward[] = [];
  const waiters: Array<(f: Forward) => void> = [];
  let failure: unknown = null;
  let onEnd!: () => void;
  const ended = new Promise<void>((resolve) => (onEnd = resolve));
  client.subscribe<{ cliForwards: Forward }>(
    { query: FORWARDS, variables: { d: destinationId } },
    {
      next: ({ data, errors }) => {
        if (errors) {
          failure = errors;
          return;
        }
        const waiter = waiters.shift();
        if (waiter) waiter(data!.cliForwards);
        else forwards.push(data!.cliForwards);
      },
      error: (err) => {
        failure = err;
        onEnd();
      },
      complete: () => onEnd(),
    },
  );
  await eventually(async () => {
    if (failure) throw new Error(`cliForwards: ${Array.isArray(failure) ? JSON.stringify(failure) : String((failure as Error).message ?? failure)}`);
    return (await presenceRows(container, destinationId)) > before;
  }, 10_000);
  return {
    next: (timeoutMs = 20_000) =>
      forwards.length > 0
        ? Promise.resolve(forwards.shift()!)
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no forward within ${timeoutMs} ms`)), timeoutMs);
            waiters.push((f) => {
              clearTimeout(timer);
              resolve(f);
            });
          }),
    ended,
    close: async () => {
      await client.dispose();
    },
  };
}
