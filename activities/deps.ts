import type { AppContainer } from '../src/app/container';

/** What activities may touch. Tests pass fakes for the parts they must. */
export type ActivityDeps = Pick<AppContainer, 'orm' | 'secrets' | 'config' | 'log' | 'notifications'>;
