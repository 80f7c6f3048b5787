import { randomBytes } from 'node:crypto';

/** URL-safe slug: lower-case letters, digits and single hyphens, 1–64 characters. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'item';
}

/** A slug with a random suffix, for generated identifiers that must be unique. */
export function uniqueSlug(text: string, bytes = 4): string {
  return `${slugify(text)}-${randomBytes(bytes).toString('hex')}`;
}
