import { proxySinks, type Sinks } from '@temporalio/workflow';

/** The delivery bench's yardstick: a workflow that does nothing, reporting its completion to the worker's process. */
export interface CeilingSinks extends Sinks {
  bench: { done(): void };
}

const { bench } = proxySinks<CeilingSinks>();

export async function emptyWorkflow(): Promise<void> {
  bench.done();
}
