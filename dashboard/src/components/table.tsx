import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { WorkflowLink } from './display';

export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** e.g. "num" (right-aligned), "mono", "hide-narrow" (hidden on phones). */
  className?: string;
}

/**
 * A dense table; `empty` renders instead when there are no rows. With `rowHref` each row is a link: every cell's
 * content is an anchor to that page (click anywhere, open it in a new tab, copy its address), the first one in the
 * tab order and read by screen readers, the others not (one stop and one link per row). Cells of such a table
 * hold no links or buttons of their own.
 */
export function Table<Row>(props: {
  rows: readonly Row[];
  columns: Column<Row>[];
  rowKey: (row: Row) => string;
  empty?: ReactNode;
  rowHref?: (row: Row) => string;
  /** A click anywhere on the row, for tables whose rows have their own link (a name) besides other controls. */
  onRowClick?: (row: Row) => void;
  rowClassName?: (row: Row) => string | undefined;
  label?: string;
}) {
  const { rows, columns, rowKey, empty, rowHref, onRowClick, rowClassName, label } = props;
  if (rows.length === 0 && empty) return <>{empty}</>;
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} className={c.className}>
                {c.header === '' ? <span className="sr-only">Actions</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const href = rowHref?.(row);
            return (
              <tr
                key={rowKey(row)}
                className={[href && 'linked', onRowClick && 'clickable', rowClassName?.(row)].filter(Boolean).join(' ') || undefined}
                onClick={onRowClick ? () => onRowClick(row) : undefined}>
                {columns.map((c, i) => (
                  <td key={i} className={c.className}>
                    {href ? (
                      <Link href={href} className="cell-link" tabIndex={i === 0 ? undefined : -1} aria-hidden={i === 0 ? undefined : true}>
                        {c.cell(row)}
                      </Link>
                    ) : (
                      c.cell(row)
                    )}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** A "Workflow" column linking each delivery to its Temporal workflow, when the service knows the Temporal UI's address. */
export function workflowColumn<Row extends { workflowUrl: string | null }>(rows: readonly Row[]): Column<Row>[] {
  return rows.some((r) => r.workflowUrl) ? [{ header: 'Workflow', cell: (r) => <WorkflowLink url={r.workflowUrl}>Temporal</WorkflowLink> }] : [];
}
