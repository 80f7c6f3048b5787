import type { MikroORM } from '@mikro-orm/postgresql';
import { hashToken } from '../common/secret-box';
import { chatCooldowns } from '../metrics/metrics';

export const CHAT_PLATFORMS = ['chat_a', 'chat_b', 'chat_c'] as const;
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

/**
 * A chat platform's global rate limit, for the credential that got it (docs/receiver-signals.md):
 * when the platform's own API (the server's CHAT_*_API_BASE_URL, reached with a bot token) answers
 * 429 with a global limit, no worker sends with that bot token until the time passes. Other
 * tokens, and every webhook URL, are not affected. In PostgreSQL so that every worker process sees
 * it; the key is (platform, SHA-256 fingerprint of the token): the token itself is never stored.
 *
 * Reads are cached in-process for `cacheMs`: one query for every active cooldown of every platform
 * per interval, however many tokens send; a cooldown set by this process is seen at once.
 */
export class PlatformCooldowns {
  /** `platform:fingerprint` → end of its cooldown (epoch ms), as last read. */
  private active = new Map<string, number>();
  private readAt = -Infinity;

  constructor(
    private readonly orm: MikroORM,
    private readonly cacheMs = 1000,
  ) {}

  /** The end of the credential's active cooldown on the platform, or null when there is none. */
  async activeUntil(platform: ChatPlatform, credential: string): Promise<Date | null> {
    const now = Date.now();
    if (now - this.readAt >= this.cacheMs) {
      const rows = await this.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ platform: string; credential: string; until: Date }>>('select "platform", "credential", "until" from "platform_cooldowns" where "until" > now()');
      this.active = new Map(rows.map((r) => [`${r.platform}:${r.credential}`, new Date(r.until).getTime()]));
      this.readAt = now;
    }
    const until = this.active.get(key(platform, credential));
    return until !== undefined && until > Date.now() ? new Date(until) : null;
  }

  /** Starts (or extends, never shortens) the credential's cooldown on the platform. */
  async set(platform: ChatPlatform, credential: string, until: Date): Promise<void> {
    const rows = await this.orm.em.fork().getConnection().execute<Array<{ until: Date }>>(
      // Expired rows go in the same statement: the table holds the credentials limited lately, no more.
      `with expired as (delete from "platform_cooldowns" where "until" < now() - interval '1 day')
       insert into "platform_cooldowns" ("platform", "credential", "until", "updated_at") values (?, ?, ?, now())
       on conflict ("platform", "credential") do update
         set "until" = greatest("platform_cooldowns"."until", excluded."until"), "updated_at" = now()
       returning "until"`,
      [platform, fingerprint(credential), until],
    );
    this.active.set(key(platform, credential), new Date(rows[0].until).getTime());
    chatCooldowns.inc({ platform });
  }
}

/** A bot token's stored name: high-entropy, so a plain SHA-256 identifies it without revealing it (as API keys are stored). */
function fingerprint(credential: string): string {
  return hashToken(credential);
}

function key(platform: ChatPlatform, credential: string): string {
  return `${platform}:${fingerprint(credential)}`;
}
