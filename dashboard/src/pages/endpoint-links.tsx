import { useState, type FormEvent } from 'react';
import { gql } from 'urql';
import { Link } from 'wouter';
import { BuilderFrame, Can, ConfirmButton, ErrorMessage, Field, FieldError, fitsRoutingRules, type RoutingRule, RulesBuilder, rulesProblem, Table, useBuilder } from '../components';
import { useCan } from '../lib/session';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';

const LINKS = gql`
  query Links($projectId: ID, $endpointId: ID!) {
    links(projectId: $projectId, endpointId: $endpointId, limit: 200) { data { id destinationId templateId transformId routingRules } }
    destinations(projectId: $projectId, limit: 200) { data { id name type webhookHost } }
    templates(projectId: $projectId, limit: 200) { data { id name } }
    transforms(projectId: $projectId, limit: 200) { data { id name } }
  }
`;
const CREATE_LINK = gql`
  mutation CreateLink($projectId: ID, $endpointId: ID!, $input: LinkInput!) { createLink(projectId: $projectId, endpointId: $endpointId, input: $input) { id } }
`;
const UPDATE_LINK = gql`
  mutation UpdateLink($projectId: ID, $endpointId: ID!, $destinationId: ID!, $input: LinkInput!) {
    updateLink(projectId: $projectId, endpointId: $endpointId, destinationId: $destinationId, input: $input) { id }
  }
`;
const DELETE_LINK = gql`
  mutation DeleteLink($projectId: ID, $endpointId: ID!, $destinationId: ID!) { deleteLink(projectId: $projectId, endpointId: $endpointId, destinationId: $destinationId) }
`;

interface Named {
  id: string;
  name: string;
}
interface LinkRow {
  id: string;
  destinationId: string;
  templateId: string | null;
  transformId: string | null;
  routingRules: RoutingRule[];
}
interface LinksData {
  links: { data: LinkRow[] };
  destinations: { data: (Named & { type: string; webhookHost: string | null })[] };
  templates: { data: Named[] };
  transforms: { data: Named[] };
}

/** Destinations this endpoint delivers to, each with its template, transform and routing rules. */
export function EndpointLinks({ endpointId }: { endpointId: string }) {
  const [{ data, error }, refetch] = useProjectQuery<LinksData>(LINKS, { endpointId });
  const [removed, remove] = useProjectMutation(DELETE_LINK);
  const canWrite = useCan('write');
  const [editing, setEditing] = useState<LinkRow | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const name = (list: Named[] | undefined, id: string | null) => (id ? (list?.find((x) => x.id === id)?.name ?? id) : '—');
  const links = data?.links.data ?? [];
  const unlinked = data?.destinations.data.filter((d) => !links.some((l) => l.destinationId === d.id)) ?? [];
  return (
    <>
      <ErrorMessage error={error ?? removed.error} />
      <Table
        label="Linked destinations"
        rows={links}
        rowKey={(l) => l.id}
        empty={<p className="muted">No destination linked: events are stored but not delivered.</p>}
        columns={[
          { header: 'Destination', cell: (l) => <Link href={`/destinations/${l.destinationId}`}>{name(data?.destinations.data, l.destinationId)}</Link> },
          { header: 'Template', cell: (l) => name(data?.templates.data, l.templateId) },
          { header: 'Transform', cell: (l) => name(data?.transforms.data, l.transformId) },
          {
            header: 'Routing rules',
            className: 'wrap mono',
            cell: (l) =>
              l.routingRules.length === 0 ? (
                <span className="muted">none</span>
              ) : (
                l.routingRules.map((r, i) => (
                  <div key={i}>
                    {`${r.name}: ${r.conditions.map((c) => `${c.field} ${c.operator} ${c.value}`.trim()).join(` ${r.logic} `) || 'always'}`}
                    {` → ${name(data?.templates.data, r.template_id ?? null)} / ${name(data?.transforms.data, r.transform_id ?? null)}`}
                  </div>
                ))
              ),
          },
          ...(canWrite
            ? [
                {
                  header: '',
                  cell: (l: LinkRow) => (
                    <span className="row">
                      <button type="button" className="small" aria-label={`Edit rules of ${name(data?.destinations.data, l.destinationId)}`} onClick={() => setEditing(l)}>
                        Edit rules
                      </button>
                      <ConfirmButton danger onConfirm={async () => { await remove({ endpointId, destinationId: l.destinationId }); reload(); }}>
                        Unlink
                      </ConfirmButton>
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Can permission="write">
        {data && editing && (
          <EditRoutingRules
            key={editing.id}
            endpointId={endpointId}
            link={editing}
            destinationName={name(data.destinations.data, editing.destinationId)}
            data={data}
            onDone={() => {
              setEditing(null);
              reload();
            }}
          />
        )}
      </Can>
      <Can permission="write">{data && <LinkForm endpointId={endpointId} data={data} destinations={unlinked} onLinked={reload} />}</Can>
    </>
  );
}

function LinkForm(props: { endpointId: string; data: LinksData; destinations: LinksData['destinations']['data']; onLinked: () => void }) {
  const { endpointId, data, destinations, onLinked } = props;
  const [destinationId, setDestinationId] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [transformId, setTransformId] = useState('');
  const rules = useBuilder<RoutingRule[]>([], fitsRoutingRules, rulesProblem);
  const [state, create] = useProjectMutation(CREATE_LINK);
  if (destinations.length === 0) {
    return (
      <p className="muted">
        {data.destinations.data.length === 0 ? 'This project has no destination yet: ' : 'Every destination is linked. '}
        <Link href="/destinations">Create a destination</Link> to link it here.
      </p>
    );
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = rules.result();
    if (parsed.error) return;
    const input = { destinationId: destinationId || destinations[0].id, templateId: templateId || undefined, transformId: transformId || undefined, routingRules: parsed.value ?? [] };
    const result = await create({ endpointId, input });
    if (!result.error) {
      setDestinationId('');
      rules.reset([]);
      onLinked();
    }
  };
  return (
    <form className="card form" onSubmit={submit} aria-label="Link a destination">
      <div className="filters">
        <Field label="Destination" field="destinationId" error={state.error}>
          <select name="destination" value={destinationId} onChange={(e) => setDestinationId(e.target.value)}>
            {destinations.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({d.type}{d.webhookHost ? `, ${d.webhookHost}` : ''})
              </option>
            ))}
          </select>
        </Field>
        <Field label="Template" field="templateId" error={state.error}>
          <select value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
            <option value="">none</option>
            {data.templates.data.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Transform" field="transformId" error={state.error}>
          <select value={transformId} onChange={(e) => setTransformId(e.target.value)}>
            <option value="">none</option>
            {data.transforms.data.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <BuilderFrame label="Routing rules" builder={rules} hint="Tried in order: the first whose conditions hold picks the template and transform; none holds: the link's own.">
        <RulesBuilder kind="routing" rules={rules.state.value} onChange={rules.setValue} templates={data.templates.data} transforms={data.transforms.data} />
      </BuilderFrame>
      <FieldError error={state.error} field="routingRules" />
      <ErrorMessage error={state.error} fields={['destinationId', 'templateId', 'transformId', 'routingRules']} />
      <div className="row">
        <button type="submit" className="primary" disabled={state.fetching}>
          Link destination
        </button>
      </div>
    </form>
  );
}

/** A saved link's routing rules in the builder; saving replaces them (`updateLink`). */
function EditRoutingRules(props: { endpointId: string; link: LinkRow; destinationName: string; data: LinksData; onDone: () => void }) {
  const { endpointId, link, destinationName, data, onDone } = props;
  const rules = useBuilder<RoutingRule[]>(link.routingRules, fitsRoutingRules, rulesProblem);
  const [state, update] = useProjectMutation(UPDATE_LINK);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = rules.result();
    if (parsed.error) return;
    const result = await update({ endpointId, destinationId: link.destinationId, input: { routingRules: parsed.value } });
    if (!result.error) onDone();
  };
  return (
    <form className="card form" onSubmit={submit} aria-label={`Routing rules of ${destinationName}`}>
      <BuilderFrame label={`Routing rules of ${destinationName}`} builder={rules}>
        <RulesBuilder kind="routing" rules={rules.state.value} onChange={rules.setValue} templates={data.templates.data} transforms={data.transforms.data} />
      </BuilderFrame>
      <ErrorMessage error={state.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={state.fetching}>
          Save routing rules
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
