import { useState, type FormEvent } from 'react';
import { gql } from 'urql';
import { BuilderFrame, Can, type Condition, ConditionsBuilder, conditionsProblem, ConfirmButton, ErrorMessage, Field, FieldError, fitsConditions, StatusBadge, Table, useBuilder } from '../components';
import { useCan } from '../lib/session';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';

const FILTERS = gql`
  query FilterGroups($projectId: ID, $endpointId: ID!) {
    filterGroups(projectId: $projectId, endpointId: $endpointId, limit: 200) { data { id name logic isEnabled conditions { field operator value } } }
  }
`;
const CREATE = gql`
  mutation CreateFilterGroup($projectId: ID, $endpointId: ID!, $input: FilterGroupInput!) { createFilterGroup(projectId: $projectId, endpointId: $endpointId, input: $input) { id } }
`;
const UPDATE = gql`
  mutation UpdateFilterGroup($projectId: ID, $endpointId: ID!, $id: ID!, $input: FilterGroupInput!) { updateFilterGroup(projectId: $projectId, endpointId: $endpointId, id: $id, input: $input) { id isEnabled } }
`;
const DELETE = gql`
  mutation DeleteFilterGroup($projectId: ID, $endpointId: ID!, $id: ID!) { deleteFilterGroup(projectId: $projectId, endpointId: $endpointId, id: $id) }
`;

interface FilterGroup {
  id: string;
  name: string;
  logic: string;
  isEnabled: boolean;
  conditions: { field: string; operator: string; value: string }[];
}

/** The endpoint's filter groups: an event that fails an enabled group is stored as `filtered` and not delivered. */
export function EndpointFilters({ endpointId }: { endpointId: string }) {
  const [{ data, error }, refetch] = useProjectQuery<{ filterGroups: { data: FilterGroup[] } }>(FILTERS, { endpointId });
  const [changed, update] = useProjectMutation(UPDATE);
  const [removed, remove] = useProjectMutation(DELETE);
  const canWrite = useCan('write');
  const [editing, setEditing] = useState<FilterGroup | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  return (
    <>
      <ErrorMessage error={error ?? changed.error ?? removed.error} />
      <Table
        label="Filters"
        rows={data?.filterGroups.data ?? []}
        rowKey={(g) => g.id}
        empty={<p className="muted">No filters: every event is delivered.</p>}
        columns={[
          { header: 'Name', cell: (g) => g.name },
          { header: 'Logic', cell: (g) => g.logic },
          {
            header: 'Conditions',
            className: 'wrap mono',
            cell: (g) => g.conditions.map((c, i) => <div key={i}>{`${c.field} ${c.operator} ${c.value}`}</div>),
          },
          { header: 'State', cell: (g) => <StatusBadge status={g.isEnabled ? 'active' : 'inactive'} /> },
          ...(canWrite
            ? [
                {
                  header: '',
                  cell: (g: FilterGroup) => (
                    <span className="row">
                      <button type="button" className="small" aria-label={`Edit ${g.name}`} onClick={() => setEditing(g)}>
                        Edit
                      </button>
                      <button type="button" className="small" onClick={async () => { await update({ endpointId, id: g.id, input: { isEnabled: !g.isEnabled } }); reload(); }}>
                        {g.isEnabled ? 'Disable' : 'Enable'}
                      </button>
                      <ConfirmButton danger onConfirm={async () => { await remove({ endpointId, id: g.id }); reload(); }}>
                        Delete
                      </ConfirmButton>
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Can permission="write">
        {editing ? (
          <div className="card">
            <FilterGroupForm
              key={editing.id}
              endpointId={endpointId}
              group={editing}
              onSaved={() => {
                setEditing(null);
                reload();
              }}
              onCancel={() => setEditing(null)}
            />
          </div>
        ) : (
          <details className="card">
            <summary>New filter group</summary>
            <FilterGroupForm endpointId={endpointId} onSaved={reload} />
          </details>
        )}
      </Can>
    </>
  );
}

const START: Condition[] = [{ field: 'body.type', operator: 'eq', value: '' }];

/** Creates a filter group, or with `group` edits its name, logic and conditions (the update replaces the whole list). */
function FilterGroupForm(props: { endpointId: string; group?: FilterGroup; onSaved: () => void; onCancel?: () => void }) {
  const { endpointId, group, onSaved, onCancel } = props;
  const [name, setName] = useState(group?.name ?? '');
  const [logic, setLogic] = useState(group?.logic ?? 'AND');
  const conditions = useBuilder<Condition[]>(group?.conditions ?? START, fitsConditions, conditionsProblem);
  const [created, create] = useProjectMutation(CREATE);
  const [updated, update] = useProjectMutation(UPDATE);
  const state = group ? updated : created;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = conditions.result();
    if (parsed.error) return;
    const input = { name, logic, conditions: parsed.value };
    const result = group ? await update({ endpointId, id: group.id, input }) : await create({ endpointId, input: { ...input, isEnabled: true } });
    if (result.error) return;
    if (!group) {
      setName('');
      conditions.reset(START);
    }
    onSaved();
  };
  return (
    <form className="form" onSubmit={submit} aria-label={group ? `Edit filter group ${group.name}` : 'New filter group'}>
      <div className="filters">
        <Field label="Name" field="name" error={state.error}>
          <input value={name} required onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Logic" field="logic" error={state.error}>
          <select value={logic} onChange={(e) => setLogic(e.target.value)}>
            <option>AND</option>
            <option>OR</option>
          </select>
        </Field>
      </div>
      <BuilderFrame label="Conditions" builder={conditions} hint='JSON: [{ "field": "body.x" | "header.X-Name", "operator", "value" }]'>
        <ConditionsBuilder conditions={conditions.state.value} onChange={conditions.setValue} />
      </BuilderFrame>
      <FieldError error={state.error} field="conditions" />
      <ErrorMessage error={state.error} fields={['name', 'logic', 'conditions']} />
      <div className="row">
        <button type="submit" className="primary" disabled={state.fetching}>
          {group ? 'Save filter group' : 'Add filter group'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
