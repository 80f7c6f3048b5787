import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'wouter';

/**
 * Page state kept in the URL's query string, so a view can be linked and survives a reload:
 * `values` holds every key ('' when absent); `set` merges a patch (empty values are dropped)
 * and replaces the history entry (typing in a filter does not pile up Back steps).
 */
export function useUrlState<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const values = useMemo(() => {
    const p = new URLSearchParams(search);
    return Object.fromEntries(keys.map((k) => [k, p.get(k) ?? ''])) as Record<K, string>;
  }, [search, keys]);
  const set = useCallback(
    (patch: Partial<Record<K, string>>) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(patch) as [K, string | undefined][]) {
            if (v) next.set(k, v);
            else next.delete(k);
          }
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  return [values, set] as const;
}

/** ISO 8601 (as kept in the URL) ⇄ the local `YYYY-MM-DDTHH:mm` of a datetime-local input. */
export function isoToLocalInput(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function localInputToIso(local: string): string {
  return local ? new Date(local).toISOString() : '';
}

/** Cursor paging (the shape of `useCursorPager`) over a URL value: the comma-separated cursors of the pages before. */
export function urlCursorPager(cursors: string, set: (cursors: string) => void) {
  const stack = cursors ? cursors.split(',') : [];
  return {
    cursor: stack.length ? stack[stack.length - 1] : undefined,
    page: stack.length + 1,
    next: (cursor: string) => set([...stack, cursor].join(',')),
    previous: () => set(stack.slice(0, -1).join(',')),
    reset: () => set(''),
  };
}
