/** UUIDv7 ids: one implementation, shared with the CLI, which reads an event's arrival time from its id. */
export * from '../../packages/cli/src/shared/ids';
