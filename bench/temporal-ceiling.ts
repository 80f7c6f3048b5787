import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { uuidv7 } from '../src/common/ids';
import { type CpuProfile, startCpuSampler, startThreadSampler, startTreeSampler } from './cpu-sampler';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Empty workflows started with the dispatcher's start concurrency and completed by a worker tuned like the relay's, per second. */
export async function measureCeiling(
  address: string,
  opts: { concurrency: number; ceilingEvents: number },
  /** Also samples this process tree by kind (the dev server under `relay start`, which is not this process's child). */
  tree?: { root: number; kindOf: (comm: string) => string },
): Promise<{ per_second: number; cpu: CpuProfile; process_cpu_ms_per_workflow: Record<string, number>; tree_cpu_ms_per_workflow?: Record<string, number> }> {
  const taskQueue = `bench-ceiling-${randomBytes(3).toString('hex')}`;
  let completed = 0;
  let lastCompletion = 0;
  const connection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  const client = new Client({ connection: clientConnection });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('./delivery-ceiling.workflow'),
    maxConcurrentWorkflowTaskExecutions: 100,
    maxCachedWorkflows: 2000,
    sinks: { bench: { done: { fn: () => void ((completed += 1), (lastCompletion = now())) } } },
  });
  const run = worker.run();
  try {
    const startEmpty = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          while (next < n) {
            next += 1;
            await client.workflow.start('emptyWorkflow', { taskQueue, workflowId: `bench-empty-${uuidv7()}` });
          }
        }),
      );
    };
    await startEmpty(200); // warm-up
    while (completed < 200) await sleep(20);
    completed = 0;
    const sample = startCpuSampler();
    const sampleTree = tree && startTreeSampler(tree.root, tree.kindOf);
    const threads = startThreadSampler();
    const started = now();
    await startEmpty(opts.ceilingEvents);
    while (completed < opts.ceilingEvents) await sleep(5);
    const treeCpu = sampleTree?.().cpu_ms;
    return {
      per_second: Math.round(opts.ceilingEvents / ((lastCompletion - started) / 1000)),
      cpu: sample(),
      process_cpu_ms_per_workflow: threads(opts.ceilingEvents),
      tree_cpu_ms_per_workflow: treeCpu && Object.fromEntries(Object.entries(treeCpu).map(([kind, ms]) => [kind, Math.round((ms / opts.ceilingEvents) * 100) / 100])),
    };
  } finally {
    worker.shutdown();
    await run;
    await connection.close();
    await clientConnection.close();
  }
}
