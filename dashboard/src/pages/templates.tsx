import { useState } from 'react';
import { gql } from 'urql';
import { useParams } from 'wouter';
import { ErrorMessage, Field, JsonView, Page, Time } from '../components';
import { useDebounced, useProjectQuery } from '../lib/hooks';
import { useCan } from '../lib/session';
import { PreviewSourcePicker, type PreviewSource } from './preview-source';
import { NamedResourceEditor, NamedResourceList } from './named-resource';
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
  return (
    <NamedResourceList<Template>
      plural="templates"
      singular="template"
      title="Templates"
      list={LIST}
      create={CREATE}
      starter={{ config: STARTER }}
      intro="A template turns an event into a chat message (chat_a, chat_b, chat_c). Webhook destinations receive the payload itself. Link a template to an endpoint’s destination on the endpoint page."
      placeholder="Name, e.g. Pull requests"
      empty={{ title: 'No templates yet', text: 'Without a template chat destinations get the default message (event type and top-level fields). Create one above to shape it.' }}
      columns={[{ header: 'Updated', cell: (t) => <Time value={t.updatedAt} /> }]}
    />
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
    <NamedResourceEditor
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
