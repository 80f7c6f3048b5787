import { type EntityClass, type FilterQuery, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type AppError, NotFoundError } from './errors';
import { isUuid } from './ids';
import type { ProjectContext } from './request-context';

/**
 * Lookups shared by project-scoped services: a row is found only inside the
 * active project, so another project's (or organization's) resource, or a
 * malformed id, is the same 404 as a missing one.
 */
export async function findInProject<T extends object>(ctx: ProjectContext, entity: EntityClass<T>, resource: string, id: string): Promise<T> {
  const row = isUuid(id) ? await ctx.em.findOne(entity, { id, project: ctx.project.id } as unknown as FilterQuery<T>) : null;
  if (!row) throw new NotFoundError(resource, id);
  return row;
}

/** Flushes; a unique-constraint violation becomes the caller's 409. */
export async function flushOrConflict(em: EntityManager, conflict: () => AppError): Promise<void> {
  try {
    await em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict();
    throw err;
  }
}
