import type { ActivityDeps } from './deps';

export function createPingActivities(deps: ActivityDeps) {
  return {
    /** Proves the worker reaches PostgreSQL: answers with the database's clock. */
    async ping(name: string): Promise<string> {
      const [row] = await deps.orm.em.fork().getConnection().execute<{ now: Date }[]>('select now() as now');
      return `pong ${name} @ ${new Date(row.now).toISOString()}`;
    },
  };
}
