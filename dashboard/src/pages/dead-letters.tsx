import { useState } from 'react';
import { gql } from 'urql';
import { Link } from 'wouter';
import { Can, EmptyState, ErrorMessage, DeliveryBadge, Page, Pager, ShortId, Table, Time, useCursorPager, workflowColumn } from '../components';
import { useCan } from '../lib/session';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';
import type { Page as ListPage } from '../lib/types';
import { REPLAY_DEAD_LETTERS } from './event';

const DEAD_LETTERS = gql`
  query DeadLetters($projectId: ID, $cursor: String) {
    deadLetters(projectId: $projectId, cursor: $cursor, limit: 50) {
      data { id eventId status attemptCount deadLetteredAt workflowUrl destination { id name type } attempts { statusCode error } }
      nextCursor
    }
  }
`;

interface DeadLetter {
  id: string;
  eventId: string;
  status: string;
  attemptCount: number;
  deadLetteredAt: string;
  workflowUrl: string | null;
  destination: { id: string; name: string; type: string } | null;
  attempts: { statusCode: number | null; error: string | null }[];
}

/** The API replays at most this many in one call (all or nothing). */
const MAX_REPLAY = 100;

/** Failed deliveries not yet replayed; replay one, or many at once. */
export function DeadLettersPage() {
  const pager = useCursorPager();
  const [{ data, error, fetching }, refetch] = useProjectQuery<{ deadLetters: ListPage<DeadLetter> }>(DEAD_LETTERS, { cursor: pager.cursor });
  const [replayed, replay] = useProjectMutation<{ replayDeadLetters: { id: string }[] }>(REPLAY_DEAD_LETTERS);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [notice, setNotice] = useState<string>();
  const canWrite = useCan('write');
  const rows = data?.deadLetters.data ?? [];

  const run = async (ids: string[]) => {
    const result = await replay({ deliveryIds: ids });
    if (result.data) {
      setNotice(`Replayed ${result.data.replayDeadLetters.length} ${result.data.replayDeadLetters.length === 1 ? 'delivery' : 'deliveries'}.`);
      setSelected(new Set());
      refetch({ requestPolicy: 'network-only' });
    }
  };
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  return (
    <Page
      title="Dead letters"
      actions={
        <Can permission="write">
          <button type="button" className="primary" disabled={selected.size === 0 || selected.size > MAX_REPLAY || replayed.fetching} onClick={() => run([...selected])}>
            Replay selected ({selected.size})
          </button>
        </Can>
      }
    >
      {notice && <div className="notice">{notice}</div>}
      <ErrorMessage error={error ?? replayed.error} />
      <Table
        label="Dead letters"
        rows={rows}
        rowKey={(d) => d.id}
        empty={fetching ? <div className="loading">Loading…</div> : <EmptyState title="The dead-letter queue is empty">Deliveries that fail every attempt land here.</EmptyState>}
        columns={[
          ...(canWrite
            ? [
                {
                  header: (
                    <input
                      type="checkbox"
                      aria-label="Select all"
                      checked={rows.length > 0 && rows.every((r) => selected.has(r.id))}
                      onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((r) => r.id)) : new Set())}
                    />
                  ),
                  cell: (d: DeadLetter) => <input type="checkbox" aria-label={`Select ${d.id}`} checked={selected.has(d.id)} onChange={() => toggle(d.id)} />,
                },
              ]
            : []),
          { header: 'Dead-lettered', cell: (d) => <Time value={d.deadLetteredAt} /> },
          { header: 'Destination', cell: (d) => d.destination?.name ?? '—' },
          { header: 'Outcome', cell: (d) => <DeliveryBadge status={d.status} deadLettered /> },
          { header: 'Attempts', cell: (d) => d.attemptCount, className: 'num' },
          {
            header: 'Last result',
            className: 'wrap',
            cell: (d) => {
              const last = d.attempts[d.attempts.length - 1];
              return last ? (last.error ?? `HTTP ${last.statusCode}`) : '—';
            },
          },
          { header: 'Event', cell: (d) => <Link href={`/events/${d.eventId}`}><ShortId id={d.eventId} /></Link> },
          ...workflowColumn(rows),
          ...(canWrite
            ? [{ header: '', cell: (d: DeadLetter) => <button type="button" className="small" onClick={() => run([d.id])}>Replay</button> }]
            : []),
        ]}
      />
      <Pager pager={pager} nextCursor={data?.deadLetters.nextCursor} />
    </Page>
  );
}
