import { useLiveConnection } from '../lib/connection';

const TEXT = {
  idle: '○ connecting…',
  connecting: '○ connecting…',
  live: '● live',
  reconnecting: '◌ reconnecting',
  offline: '○ offline',
} as const;

/** What the live connection really does (src/lib/connection.ts), or why the list is not live. */
export function LiveIndicator({ paused }: { paused?: string }) {
  const { state, attempt } = useLiveConnection();
  const text = paused ?? `${TEXT[state]}${state === 'reconnecting' || state === 'offline' ? ` (attempt ${attempt + 1})` : ''}`;
  return (
    <span className={`live-indicator ${paused ? 'muted' : state}`} data-testid="live-indicator" data-state={paused ? 'paused' : state} role="status">
      {text}
    </span>
  );
}
