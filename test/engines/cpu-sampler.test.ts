import { THREAD_GROUPS, threadGroup } from '../../bench/cpu-sampler';

/**
 * The delivery benches' CPU by thread group (bench/cpu-sampler.ts) on each supported Node: until Node 22 every
 * thread is named `node`; Node 24 names them (`MainThread`, `WorkerThread`, `V8Worker`, …). Thread names as
 * /proc/<pid>/task/<tid>/comm shows them for a relay worker process on each.
 */
describe('bench CPU by thread group', () => {
  const started = 1_000;
  const at = (seconds: number) => started + seconds * 100;

  it.each([
    ['Node 20 and 22', 'node', ['node', 'node', 'node']],
    ['Node 24', 'MainThread', ['V8Worker', 'DelayedTaskSche', 'libuv-worker']],
  ])('%s: main thread, helpers, the SDK workflow threads and Temporal core are told apart', (_, main, helpers) => {
    const proc = { pid: 10, comm: main, started };
    const workflow = main === 'node' ? 'node' : 'WorkerThread';
    const groups = [
      threadGroup({ tid: 10, comm: main, started }, proc),
      ...helpers.map((comm, i) => threadGroup({ tid: 11 + i, comm, started: at(0.1) }, proc)),
      threadGroup({ tid: 20, comm: workflow, started: at(5) }, proc),
      threadGroup({ tid: 21, comm: 'tokio-runtime-w', started: at(5) }, proc),
      threadGroup({ tid: 22, comm: 'workflow-proces', started: at(5) }, proc),
    ];
    expect(groups).toEqual([THREAD_GROUPS.main, ...helpers.map(() => THREAD_GROUPS.helpers), THREAD_GROUPS.workflow, THREAD_GROUPS.core, THREAD_GROUPS.core]);
  });

  it('Node 24: a helper or worker thread started late is still grouped by its name', () => {
    const proc = { pid: 10, comm: 'MainThread', started };
    expect(threadGroup({ tid: 30, comm: 'libuv-worker', started: at(60) }, proc)).toBe(THREAD_GROUPS.helpers);
    expect(threadGroup({ tid: 31, comm: 'WorkerThread', started: at(0.5) }, proc)).toBe(THREAD_GROUPS.workflow);
  });
});
