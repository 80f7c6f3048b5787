import type { EntityClass, FilterQuery, FindOptions } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ValidationError } from './errors';
import { isUuid } from './ids';

/**
 * Cursor pagination of docs/api.md#conventions: `?limit=` (default 50, at most 200)
 * and `?cursor=`; answers `{ data, next_cursor }`. Ids are UUIDv7, so lists
 * run newest first by id and the cursor is the last id returned, as 32 hex
 * digits (opaque to clients; its format is in the OpenAPI document).
 */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

const CURSOR = /^[0-9a-f]{32}$/i;

export const paginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
  // Checked by decodeCursor (400 `invalid_cursor`); the pattern documents the same rule.
  cursor: z.string().min(1).meta({ pattern: CURSOR.source, description: 'The `next_cursor` of the previous page' }).optional(),
});
export type PageRequest = z.infer<typeof paginationQuery>;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export function encodeCursor(id: string): string {
  return id.replaceAll('-', '');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = CURSOR.test(cursor) ? cursor.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-').toLowerCase() : '';
  if (!isUuid(id)) throw new ValidationError('cursor is not valid: pass the next_cursor of a previous page.', { field: 'cursor' }, 'invalid_cursor');
  return id;
}

/** `where` fragment for "older than the cursor" on the id column. */
export function cursorFilter(page: PageRequest): { id?: { $lt: string } } {
  const id = decodeCursor(page.cursor);
  return id ? { id: { $lt: id } } : {};
}

/** Fetch `limit + 1` rows ordered by id desc, then call this to build the page. */
export function toPage<E extends { id: string }, V>(rows: E[], page: PageRequest, view: (row: E) => V): Page<V> {
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  // One argument only: a view with an optional second parameter (toDestinationView's generated secret) must not get the index.
  return { data: kept.map((row) => view(row)), next_cursor: more ? encodeCursor(kept[kept.length - 1].id) : null };
}

const pages = new WeakMap<z.ZodType, z.ZodObject<{ data: z.ZodArray<z.ZodType>; next_cursor: z.ZodNullable<z.ZodString> }>>();

/** Response schema of a list, for the OpenAPI document: one per item schema, so that it is one named component. */
export function pageSchema(item: z.ZodType) {
  let page = pages.get(item);
  if (!page) pages.set(item, (page = z.object({ data: z.array(item), next_cursor: z.string().nullable() })));
  return page;
}

/** The item schema of a `pageSchema`, else undefined. */
export function pageItem(schema: z.ZodType): z.ZodType | undefined {
  const shape = (schema as Partial<z.ZodObject>).shape;
  return shape?.next_cursor && shape.data instanceof z.ZodArray ? (shape.data.element as z.ZodType) : undefined;
}

/**
 * The query behind every list: rows matching `where`, older than the cursor,
 * newest first, one more than the limit (to know whether a next page exists).
 */
export async function findPage<E extends { id: string }, V>(
  em: EntityManager,
  entity: EntityClass<E>,
  where: FilterQuery<E>,
  page: PageRequest,
  view: (row: E) => V,
  options: Pick<FindOptions<E, never>, 'populate'> = {},
): Promise<Page<V>> {
  const rows = await em.find(entity, { $and: [where, cursorFilter(page)] } as FilterQuery<E>, {
    ...options,
    orderBy: { id: 'desc' },
    limit: page.limit + 1,
  } as FindOptions<E, never>);
  return toPage(rows as E[], page, view);
}
