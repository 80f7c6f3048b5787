/**
 * Message template configs (docs/templates.md): v1 is one flat object
 * for every platform; v2 is `{ version: 2, platforms: { <type>: {...}, default: {...} } }`
 * where the destination type's variant wins and `default` is the fallback.
 */

/** Keys of a variant that hold one template string each. */
export const TEMPLATE_STRING_KEYS = ['title', 'url', 'description', 'footer', 'thumbnail', 'author', 'content', 'text', 'telegram_html'] as const;
export const VARIANT_KEYS: readonly string[] = [...TEMPLATE_STRING_KEYS, 'color', 'fields', 'timestamp', 'slack_blocks'];
export const PLATFORM_KEYS: readonly string[] = ['chat_a', 'chat_b', 'chat_c', 'webhook', 'cli', 'default'];

export interface TemplateVariant {
  variant: Record<string, unknown>;
  /** Prefix of error paths inside the config: '' (v1) or 'platforms.<key>.' (v2). */
  path: string;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function isV2(config: Record<string, unknown>): boolean {
  return config.version === 2 || config.version === '2';
}

/** The variant a destination type uses, or null when the config has none for it. */
export function selectVariant(config: unknown, platform: string): TemplateVariant | null {
  if (!isObject(config)) return null;
  if (!isV2(config)) return { variant: config, path: '' };
  const platforms = config.platforms;
  if (!isObject(platforms)) return null;
  for (const key of [platform, 'default']) {
    if (isObject(platforms[key])) return { variant: platforms[key], path: `platforms.${key}.` };
  }
  return null;
}
