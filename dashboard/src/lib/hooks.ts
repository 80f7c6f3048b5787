import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery, useSubscription, type AnyVariables, type DocumentInput, type RequestPolicy, type UseQueryArgs } from 'urql';
import { useLiveConnection } from './connection';
import { useWorkspace } from './session';

type WithoutProject<V> = Omit<V, 'projectId'>;

/**
 * urql's useQuery inside the current project: adds `projectId` to the variables, so every
 * query names the project the switcher shows (never the API's default project).
 */
export function useProjectQuery<Data = unknown, Vars extends AnyVariables = AnyVariables>(
  query: DocumentInput<Data, Vars>,
  variables: WithoutProject<Vars> = {} as WithoutProject<Vars>,
  options: { requestPolicy?: RequestPolicy; pause?: boolean } = {},
) {
  const { project } = useWorkspace();
  // Keyed by value: callers pass a fresh object literal on every render.
  const key = JSON.stringify(variables);
  const vars = useMemo(() => ({ ...(JSON.parse(key) as object), projectId: project.id }) as unknown as Vars, [project.id, key]);
  return useQuery<Data, Vars>({ query, variables: vars, ...options } as UseQueryArgs<Vars, Data>);
}

/** urql's useMutation with `projectId` added to the variables; returns [state, run(vars)]. */
export function useProjectMutation<Data = unknown, Vars extends AnyVariables = AnyVariables>(query: DocumentInput<Data, Vars>) {
  const { project } = useWorkspace();
  const [state, execute] = useMutation<Data, Vars>(query);
  const run = useCallback(
    (variables: WithoutProject<Vars>) => execute({ ...variables, projectId: project.id } as unknown as Vars),
    [execute, project.id],
  );
  return [state, run] as const;
}

/**
 * A subscription in the current project; `onData` runs for every message (e.g. to prepend a row).
 * It is made again after each reconnection (src/lib/connection.ts), so a subscription the server
 * ended while going down does not stay dead.
 */
export function useProjectSubscription<Data = unknown, Vars extends AnyVariables = AnyVariables>(
  query: DocumentInput<Data, Vars>,
  variables: WithoutProject<Vars>,
  onData: (data: Data) => void,
  pause = false,
) {
  const { project } = useWorkspace();
  const key = JSON.stringify(variables);
  const vars = useMemo(() => ({ ...(JSON.parse(key) as object), projectId: project.id }) as unknown as Vars, [project.id, key]);
  // The latest callback sees the latest state (filters), without resubscribing on every render.
  const latest = useRef(onData);
  useEffect(() => {
    latest.current = onData;
  });
  const { generation } = useLiveConnection();
  const context = useMemo(() => ({ generation }), [generation]);
  return useSubscription<Data, Data, Vars>({ query, variables: vars, pause, context } as never, (_previous, data) => {
    latest.current(data);
    return data;
  });
}

/** `value`, once it has stopped changing for `ms` (live previews do not run on every keystroke). */
export function useDebounced<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
