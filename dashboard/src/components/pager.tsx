import { useCallback, useState } from 'react';

/** Cursor paging state: the cursor of the page shown and the ones before it (for "Previous"). */
export function useCursorPager() {
  // undefined, not null, for the first page: the API refuses `cursor: null`.
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  const cursor = stack[stack.length - 1];
  const next = useCallback((nextCursor: string) => setStack((s) => [...s, nextCursor]), []);
  const previous = useCallback(() => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)), []);
  const reset = useCallback(() => setStack([undefined]), []);
  return { cursor, page: stack.length, next, previous, reset };
}

export function Pager(props: { pager: Pick<ReturnType<typeof useCursorPager>, 'page' | 'next' | 'previous'>; nextCursor: string | null | undefined }) {
  const { pager, nextCursor } = props;
  if (pager.page === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="small" disabled={pager.page === 1} onClick={pager.previous}>
        ← Previous
      </button>
      <span className="muted">page {pager.page}</span>
      <button type="button" className="small" disabled={!nextCursor} onClick={() => nextCursor && pager.next(nextCursor)}>
        Next →
      </button>
    </nav>
  );
}
