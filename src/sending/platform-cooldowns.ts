import type { MikroORM } from '@mikro-orm/postgresql';
import { chatCooldowns } from '../metrics/metrics';

export const CHAT_PLATFORMS = ['chat_a', 'chat_b', 'chat_c'] as const;
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

/**
 * The global per-platform cooldown of docs/delivery.md#retries-timeouts-and-what-receivers-can-say, in PostgreSQL so that
 * every worker process sees it: when a platform answers 429 with a global
 * limit, no worker sends to that platform until the time passes.
 *
 * Reads are cached in-process for `cacheMs` (one query per platform per
 * interval, not one per send); a cooldown set by this process is seen at once.
 */
export class PlatformCooldowns {
  private readonly cache = new Map<ChatPlatform, { until: number | null; readAt: number }>();

  constructor(
    private readonly orm: MikroORM,
    private readonly cacheMs = 1000,
  ) {}

  /** The end of the platform's active cooldown, or null when there is none. */
  async activeUntil(platform: ChatPlatform): Promise<Date | null> {
    const now = Date.now();
    const cached = this.cache.get(platform);
    if (!cached || now - cached.readAt >= this.cacheMs) {
      const rows = await this.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ until: Date }>>('select "until" from "platform_cooldowns" where "platform" = ?', [platform]);
      this.cache.set(platform, { until: rows[0] ? new Date(rows[0].until).getTime() : null, readAt: now });
    }
    const until = this.cache.get(platform)!.until;
    return until !== null && until > Date.now() ? new Date(until) : null;
  }

  /** Starts (or extends, never shortens) the platform's cooldown. */
  async set(platform: ChatPlatform, until: Date): Promise<void> {
    const rows = await this.orm.em.fork().getConnection().execute<Array<{ until: Date }>>(
      `insert into "platform_cooldowns" ("platform", "until", "updated_at") values (?, ?, now())
       on conflict ("platform") do update
         set "until" = greatest("platform_cooldowns"."until", excluded."until"), "updated_at" = now()
       returning "until"`,
      [platform, until],
    );
    this.cache.set(platform, { until: new Date(rows[0].until).getTime(), readAt: Date.now() });
    chatCooldowns.inc({ platform });
  }
}
