import { proxyActivities } from '@temporalio/workflow';
import type { RelayActivities } from '../activities';

const { ping } = proxyActivities<RelayActivities>({ startToCloseTimeout: '10 seconds' });

/** The smallest round trip through a worker: used by readiness checks and the first end-to-end test. */
export async function pingWorkflow(name: string): Promise<string> {
  return ping(name);
}
