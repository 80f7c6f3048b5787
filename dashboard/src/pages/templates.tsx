import { useState, type FormEvent } from 'react';
import { gql } from 'urql';
import { Link, useLocation, useParams } from 'wouter';
import { Can, EmptyState, ErrorMessage, Field, JsonView, Page, Pager, Table, Time, useCursorPager } from '../components';
import { useDebounced, useProjectMutation, useProjectQuery } from '../lib/hooks';
import { useCan } from '../lib/session';
import { PreviewSourcePicker, type PreviewSource } from './preview-source';
import { ResourceEditor } from './resource-editor';
import './editor.css';

/** Message templates: list, create, and an editor whose preview re-renders (without delivering) as you type. */

interface Template {
  id: string;
  name: string;
  config: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}
interface PreviewProblem {
  stage: string;
  path: string | null;
  line: number | null;
  position: number | null;
  message: string;
}
interface Preview {
  transformedPayload: unknown;
  outputs: Record<string, unknown>;
  errors: PreviewProblem[];
}

const LIST = gql`query Templates($projectId: ID, $cursor: String) {
  templates(projectId: $projectId, cursor: $cursor, limit: 50) { data { id name updatedAt } nextCursor } }`;
const ONE = gql`query Template($projectId: ID, $id: ID!) { template(projectId: $projectId, id: $id) { id name config createdAt updatedAt } }`;
const CREATE = gql`mutation CreateTemplate($projectId: ID, $input: TemplateInput!) { createTemplate(projectId: $projectId, input: $input) { id } }`;
const UPDATE = gql`mutation UpdateTemplate($projectId: ID, $id: ID!, $input: TemplateInput!) {
  updateTemplate(projectId: $projectId, id: $id, input: $input) { id name config createdAt updatedAt } }`;
const DELETE = gql`mutation DeleteTemplate($projectId: ID, $id: ID!) { deleteTemplate(projectId: $projectId, id: $id) }`;
const PREVIEW = gql`query PreviewTemplate($projectId: ID, $input: TemplatePreviewInput!) {
  previewTemplate(projectId: $projectId, input: $input) { transformedPayload outputs errors { stage path line position message } } }`;

const TRANSFORMS = gql`query TemplateTransforms($projectId: ID) { transforms(projectId: $projectId, limit: 200) { data { id name } } }`;

const CHAT_TYPES = ['chat_a', 'chat_b', 'chat_c'] as const;

const STARTER = {
  version: 2,
  platforms: {
    default: { title: '{{ .Meta.EventType }} on {{ .Payload.repository.name }}', description: 'by {{ .Payload.sender.login | default "someone" }}' },
    chat_c: { telegram_html: '<b>{{ .Meta.EventType }}</b> on {{ .Payload.repository.name }}' },
  },
};

export function TemplatesPage() {
  const pager = useCursorPager();
  const [{ data, error, fetching }] = useProjectQuery<{ templates: { data: Template[]; nextCursor: string | null } }>(LIST, { cursor: pager.cursor });
  const [name, setName] = useState('');
  const [created, create] = useProjectMutation<{ createTemplate: { id: string } }>(CREATE);
  const [, navigate] = useLocation();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await create({ input: { name, config: STARTER } });
    if (result.data) navigate(`/templates/${result.data.createTemplate.id}`);
  };
  return (
    <Page title="Templates">
      <p className="muted">A template turns an event into a chat message (chat_a, chat_b, chat_c). Webhook destinations receive the payload itself. Link a template to an endpoint’s destination on the endpoint page.</p>
      <Can permission="write">
        <form className="row card" onSubmit={submit} aria-label="New template">
          <Field label="New template" field="name" error={created.error}>
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Name, e.g. Pull requests" required />
          </Field>
          <button type="submit" className="primary" disabled={created.fetching}>
            Create and edit
          </button>
          <ErrorMessage error={created.error} fields={['name']} />
        </form>
      </Can>
      <ErrorMessage error={error} />
      <Table
        label="Templates"
        rows={data?.templates.data ?? []}
        rowKey={(t) => t.id}
        onRowClick={(t) => navigate(`/templates/${t.id}`)}
        empty={
          fetching ? (
            <div className="loading">Loading…</div>
          ) : (
            !error && (
              <EmptyState title="No templates yet">
                Without a template chat destinations get the default message (event type and top-level fields). Create one above to shape it.
              </EmptyState>
            )
          )
        }
        columns={[
          { header: 'Name', cell: (t) => <Link href={`/templates/${t.id}`}>{t.name}</Link> },
          { header: 'Updated', cell: (t) => <Time value={t.updatedAt} /> },
        ]}
      />
      <Pager pager={pager} nextCursor={data?.templates.nextCursor} />
    </Page>
  );
}

export function TemplatePage() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error }, refetch] = useProjectQuery<{ template: Template }>(ONE, { id });
  const t = data?.template;
  if (!t) return <Page title="Template">{error ? <ErrorMessage error={error} /> : <div className="loading">Loading…</div>}</Page>;
  return <TemplateEditor key={t.id} template={t} onSaved={() => refetch({ requestPolicy: 'network-only' })} />;
}

function parseConfig(text: string): { config?: Record<string, unknown>; problem?: string } {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'The config is a JSON object.' };
    return { config: value as Record<string, unknown> };
  } catch (err) {
    return { problem: `Not JSON: ${(err as Error).message}` };
  }
}

function TemplateEditor({ template, onSaved }: { template: Template; onSaved: () => void }) {
  const canWrite = useCan('write');
  const [text, setText] = useState(JSON.stringify(template.config, null, 2));
  const [source, setSource] = useState<PreviewSource>({ invalid: '' });
  const [types, setTypes] = useState<string[]>(['chat_b']);
  const [transformId, setTransformId] = useState('');
  const [{ data: transforms }] = useProjectQuery<{ transforms: { data: Array<{ id: string; name: string }> } }>(TRANSFORMS);
  const parsed = parseConfig(text);
  return (
    <ResourceEditor
      list={{ href: '/templates', title: 'Templates' }}
      id={template.id}
      savedName={template.name}
      update={UPDATE}
      remove={DELETE}
      formLabel="Template"
      input={parsed.config ? { config: parsed.config } : null}
      errorFields={['config']}
      onSaved={onSaved}
      fields={(saveError) => (
        <Field label="Config (JSON: v1 flat, or v2 per platform)" field="config" error={saveError} hint={parsed.problem ? <span className="field-error">{parsed.problem}</span> : 'Strings are templates: {{ .Payload.repository.name | upper }}, {{ .Meta.EventType }} (docs/templates.md).'}>
          <textarea className="code" aria-label="Template config" value={text} onChange={(e) => setText(e.target.value)} rows={18} spellCheck={false} readOnly={!canWrite} />
        </Field>
      )}
      aside={
        <>
          <PreviewSourcePicker onChange={setSource} />
          {(transforms?.transforms.data.length ?? 0) > 0 && (
            <Field label="Transform first (as a link would)" field="transformId">
              <select value={transformId} onChange={(e) => setTransformId(e.target.value)} aria-label="Transform first">
                <option value="">None</option>
                {transforms!.transforms.data.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <div className="row" role="group" aria-label="Destination types">
            {CHAT_TYPES.map((type) => (
              <label key={type} className="row">
                <input type="checkbox" checked={types.includes(type)} onChange={(e) => setTypes((ts) => (e.target.checked ? [...ts, type] : ts.filter((x) => x !== type)))} />
                {type}
              </label>
            ))}
          </div>
          {parsed.config && <TemplatePreview config={parsed.config} source={source} types={types} transformId={transformId} />}
        </>
      }
    />
  );
}

/** Renders the config being edited (not the saved one) against the chosen payload, after a short pause in typing. */
function TemplatePreview(props: { config: Record<string, unknown>; source: PreviewSource; types: string[]; transformId: string }) {
  const settled = useDebounced(JSON.stringify(props));
  const input = JSON.parse(settled) as typeof props;
  const runnable = !('invalid' in input.source) && input.types.length > 0;
  const [{ data, error, fetching }] = useProjectQuery<{ previewTemplate: Preview }>(
    PREVIEW,
    { input: { templateConfig: input.config, destinationTypes: input.types, ...(input.transformId ? { transformId: input.transformId } : {}), ...input.source } },
    { pause: !runnable, requestPolicy: 'network-only' },
  );
  if (!runnable) return <div className="muted">Pick a destination type and a valid payload to preview.</div>;
  const preview = data?.previewTemplate;
  return (
    <section aria-label="Preview" aria-busy={fetching}>
      <h2>Preview {fetching && <span className="muted">…</span>}</h2>
      <ErrorMessage error={error} />
      {preview?.errors.map((p, i) => (
        <div key={i} className="error" role="alert">
          {p.stage === 'template' && p.path ? <code>{p.path}</code> : p.stage}
          {p.line ? ` line ${p.line}` : ''}
          {p.position != null ? ` at character ${p.position}` : ''}: {p.message}
        </div>
      ))}
      {preview &&
        input.types.map((type) => (
          <div key={type} className="preview-output" data-testid={`preview-${type}`}>
            <h3>{type}</h3>
            {preview.outputs[type] == null ? <span className="muted">could not be built (see the error above)</span> : <JsonView value={preview.outputs[type]} />}
          </div>
        ))}
    </section>
  );
}
