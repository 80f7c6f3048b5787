import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExecutionResult } from 'graphql';
import type { SubscribeResolverData } from 'type-graphql';
import { ApiKey } from '../api-keys/api-key.entity';
import type { AppContainer } from '../app/container';
import { authorize } from '../auth/access';
import { AppError, UnauthenticatedError } from '../common/errors';
import { NOTIFY } from '../common/notify-channels';
import type { Principal, ProjectContext } from '../common/request-context';
import type { GraphQLContext } from '../graphql/context';
import { User } from '../users/user.entity';

/**
 * Access of open subscriptions, checked for every item pushed, in one place:
 * every subscription resolver authorizes through `authorizeSubscription`
 * (which records the project), and the graphql-ws hooks
 * (src/subscriptions/ws-hooks.ts) wrap every subscription's stream with
 * `SubscriptionGate.guard`, which refuses a stream whose resolver recorded
 * nothing. Before each item is sent the principal's access to the project is
 * read from a per-process cache (principal + project → allowed or the error),
 * which holds only the pairs of subscriptions still open (an entry goes when
 * the last subscription of its pair ends, so the cache does not grow with every
 * client that ever subscribed); the cache is dropped when access may have
 * changed anywhere (NOTIFY on
 * `relay_access` and the project / organization / API key hints of
 * `relay_endpoints`), and every open subscription is then re-checked at once.
 * Lost access closes the socket with 4403 `<code>: <message>`; an expired or
 * revoked session with 4401. The session's access token also closes it when
 * it expires (a timer at `exp`).
 */
export const WS_FORBIDDEN = 4403;
export const WS_UNAUTHORIZED = 4401;

type Data = SubscribeResolverData<unknown, Record<string, string | undefined>, GraphQLContext>;

/** The authorization of a subscription resolver: `read` on the project (argument, connection param, or the default project), recorded for the gate. */
export async function authorizeSubscription({ args, context }: Data): Promise<ProjectContext> {
  const ctx = await authorize(context.ctx, { scope: 'project', permission: 'read' }, { projectId: args.projectId, projectFrom: 'projectId' });
  context.subscriptionProjectId = ctx.project.id;
  return ctx;
}

/** Call after someone may have lost access that the endpoint notifications do not cover (see NOTIFY.accessChanged). */
export async function notifyAccessChanged(em: EntityManager, payload: `user:${string}` | `session:${string}`): Promise<void> {
  // Inside the caller's transaction when there is one: sent at its COMMIT.
  await em.execute('select pg_notify(?, ?)', [NOTIFY.accessChanged, payload]);
}

/** What closes a socket: the close code and the error whose `code: message` is the reason. */
interface Refusal {
  closeCode: number;
  error: AppError;
}

interface OpenSubscription {
  principal: Principal;
  projectId: string;
  close(refusal: Refusal): void;
}

const gates = new WeakMap<AppContainer, SubscriptionGate>();

const principalKey = (p: Principal) => (p.kind === 'user' ? `user:${p.userId}` : `key:${p.apiKeyId}`);
const accessKey = (sub: OpenSubscription) => `${principalKey(sub.principal)}|${sub.projectId}`;

function accessEnded(message: string): AppError {
  return new AppError(403, 'access_revoked', message);
}

export class SubscriptionGate {
  private readonly cache = new Map<string, Promise<Refusal | null>>();
  private readonly open = new Set<OpenSubscription>();
  /** Open subscriptions per cache key: the cache keeps only keys counted here. */
  private readonly openPerKey = new Map<string, number>();
  private listening: Promise<void> | null = null;
  private removeListeners: Array<() => void> = [];

  private constructor(private readonly container: AppContainer) {}

  static for(container: AppContainer): SubscriptionGate {
    let gate = gates.get(container);
    if (!gate) {
      const created = new SubscriptionGate(container);
      gate = created;
      gates.set(container, created);
      container.onClose('subscription access', () => created.stop());
    }
    return gate;
  }

  /**
   * Wraps the stream of one subscription: each item is sent only while the
   * principal still has access; `closeSocket` ends the connection otherwise.
   */
  async guard(
    context: GraphQLContext,
    source: AsyncIterable<ExecutionResult>,
    closeSocket: (code: number, reason: string) => void,
  ): Promise<AsyncIterableIterator<ExecutionResult>> {
    const { principal } = context.ctx;
    const projectId = context.subscriptionProjectId;
    if (!principal || !projectId) {
      throw new Error('A subscription must authorize through authorizeSubscription (src/subscriptions/subscription-access.ts).');
    }
    await this.ensureListening();
    const iterator = source[Symbol.asyncIterator]();
    let closed = false;
    let expiry: NodeJS.Timeout | undefined;
    const sub: OpenSubscription = {
      principal,
      projectId,
      close: ({ closeCode, error }) => {
        if (closed) return;
        closed = true;
        // A close reason is at most 123 bytes.
        closeSocket(closeCode, `${error.code}: ${error.message}`.slice(0, 120));
      },
    };
    const key = accessKey(sub);
    const end = () => {
      clearTimeout(expiry);
      if (!this.open.delete(sub)) return;
      const left = (this.openPerKey.get(key) ?? 1) - 1;
      if (left > 0) this.openPerKey.set(key, left);
      else {
        this.openPerKey.delete(key);
        this.cache.delete(key);
      }
    };
    this.open.add(sub);
    this.openPerKey.set(key, (this.openPerKey.get(key) ?? 0) + 1);
    if (principal.kind === 'user' && principal.tokenExpiresAt) {
      const expired = () =>
        sub.close({ closeCode: WS_UNAUTHORIZED, error: new UnauthenticatedError('The access token has expired: reconnect with a fresh one.', 'token_expired') });
      expiry = setTimeout(expired, Math.max(0, principal.tokenExpiresAt.getTime() - Date.now()));
      expiry.unref();
    }
    const finish = async (): Promise<IteratorResult<ExecutionResult>> => {
      end();
      await iterator.return?.();
      return { value: undefined, done: true };
    };
    const guarded: AsyncIterableIterator<ExecutionResult> = {
      next: async () => {
        const item = await iterator.next();
        if (item.done) {
          end();
          return item;
        }
        if (closed) return finish();
        const refusal = await this.check(sub);
        if (refusal) {
          sub.close(refusal);
          return finish();
        }
        return item;
      },
      return: finish,
      [Symbol.asyncIterator]: () => guarded,
    };
    return guarded;
  }

  get openCount(): number {
    return this.open.size;
  }

  /** Access answers held: at most one per (principal, project) with an open subscription. */
  get cachedCount(): number {
    return this.cache.size;
  }

  private check(sub: OpenSubscription): Promise<Refusal | null> {
    const key = accessKey(sub);
    let cached = this.cache.get(key);
    if (!cached) {
      cached = this.readAccess(sub.principal, sub.projectId);
      // A check that finishes after its subscription ended is answered but not kept.
      if (!this.openPerKey.has(key)) return cached;
      this.cache.set(key, cached);
      // A failed read is not remembered.
      cached.catch(() => this.cache.delete(key));
    }
    return cached;
  }

  /** The same rules as a query (src/auth/access.ts), on a fresh EntityManager. */
  private async readAccess(principal: Principal, projectId: string): Promise<Refusal | null> {
    const em = this.container.orm.em.fork();
    const stillThere =
      principal.kind === 'api_key' ? await em.count(ApiKey, { id: principal.apiKeyId, revokedAt: null }) : await em.count(User, { id: principal.userId });
    if (!stillThere) {
      const what = principal.kind === 'api_key' ? 'The API key was revoked' : 'The user no longer exists';
      return { closeCode: WS_UNAUTHORIZED, error: new UnauthenticatedError(`${what}: this subscription has ended.`, 'access_revoked') };
    }
    try {
      const ctx = await authorize({ em, principal, requestId: 'subscription', container: this.container }, { scope: 'project', permission: 'read' }, { projectId });
      if (ctx.project.archivedAt) return { closeCode: WS_FORBIDDEN, error: accessEnded('The project was archived: this subscription has ended.') };
      return null;
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return { closeCode: WS_FORBIDDEN, error: accessEnded(`You no longer have access to this project (${err.message}): this subscription has ended.`) };
    }
  }

  private ensureListening(): Promise<void> {
    const { notifications } = this.container;
    this.listening ??= Promise.all([
      // After a reconnection notifications may have been lost: forget everything.
      notifications.listen({ channel: NOTIFY.accessChanged, onNotify: (payload) => this.invalidate(payload), onConnect: () => this.invalidate('') }),
      notifications.listen({
        channel: NOTIFY.endpointsChanged,
        // Bare endpoint ids are edits of endpoints; the prefixed hints are about projects, organizations and API keys.
        onNotify: (payload) => /^(project:|organization:|api_keys)/.test(payload) && this.invalidate(payload),
      }),
    ]).then((removers) => {
      this.removeListeners = removers;
    });
    return this.listening;
  }

  private invalidate(payload: string): void {
    this.cache.clear();
    const revokedSession = payload.startsWith('session:') ? payload.slice('session:'.length) : null;
    for (const sub of this.open) {
      if (revokedSession && sub.principal.kind === 'user' && sub.principal.sessionId === revokedSession) {
        sub.close({ closeCode: WS_UNAUTHORIZED, error: new UnauthenticatedError('The session was logged out or revoked: this subscription has ended.', 'session_revoked') });
        continue;
      }
      this.check(sub)
        .then((refusal) => refusal && sub.close(refusal))
        .catch((err: unknown) => this.container.log.warn({ err }, 'could not re-check the access of a subscription'));
    }
  }

  private async stop(): Promise<void> {
    await this.listening;
    for (const remove of this.removeListeners) remove();
  }
}
