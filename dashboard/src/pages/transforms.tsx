import { useState } from 'react';
import { gql } from 'urql';
import { useParams } from 'wouter';
import { ErrorMessage, Field, JsonView, Page, Time } from '../components';
import { useDebounced, useProjectQuery } from '../lib/hooks';
import { useCan } from '../lib/session';
import { PreviewSourcePicker, type PreviewSource } from './preview-source';
import { NamedResourceEditor, NamedResourceList } from './named-resource';
import './editor.css';

/** JSONata transforms: list, create, and an editor that runs the expression being typed against a stored event or a sample. */

interface Transform {
  id: string;
  name: string;
  expression: string;
  createdAt: string;
  updatedAt: string;
}
interface TransformPreview {
  result: unknown;
  error: { code: string; message: string; position: number | null } | null;
}

const LIST = gql`query Transforms($projectId: ID, $cursor: String) {
  transforms(projectId: $projectId, cursor: $cursor, limit: 50) { data { id name expression updatedAt } nextCursor } }`;
const ONE = gql`query Transform($projectId: ID, $id: ID!) { transform(projectId: $projectId, id: $id) { id name expression createdAt updatedAt } }`;
const CREATE = gql`mutation CreateTransform($projectId: ID, $input: TransformInput!) { createTransform(projectId: $projectId, input: $input) { id } }`;
const UPDATE = gql`mutation UpdateTransform($projectId: ID, $id: ID!, $input: TransformInput!) {
  updateTransform(projectId: $projectId, id: $id, input: $input) { id name expression createdAt updatedAt } }`;
const DELETE = gql`mutation DeleteTransform($projectId: ID, $id: ID!) { deleteTransform(projectId: $projectId, id: $id) }`;
const PREVIEW = gql`query PreviewTransform($projectId: ID, $input: TransformPreviewInput!) {
  previewTransform(projectId: $projectId, input: $input) { result error { code message position } } }`;

const STARTER = '{\n  "repo": repository.name,\n  "who": sender.login\n}';

export function TransformsPage() {
  return (
    <NamedResourceList<Transform>
      plural="transforms"
      singular="transform"
      title="Transforms"
      list={LIST}
      create={CREATE}
      starter={{ expression: STARTER }}
      intro="A transform is a JSONata expression that reshapes the payload before templates render it and webhooks receive it. A transform that fails sends the delivery to the dead-letter queue."
      placeholder="Name, e.g. Slim push"
      empty={{ title: 'No transforms yet', text: 'Create one above, try it against a stored event, then pick it on an endpoint’s destination link.' }}
      columns={[
        { header: 'Expression', cell: (t) => t.expression.replace(/\s+/g, ' ').slice(0, 80), className: 'mono hide-narrow' },
        { header: 'Updated', cell: (t) => <Time value={t.updatedAt} /> },
      ]}
    />
  );
}

export function TransformPage() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error }, refetch] = useProjectQuery<{ transform: Transform }>(ONE, { id });
  const t = data?.transform;
  if (!t) return <Page title="Transform">{error ? <ErrorMessage error={error} /> : <div className="loading">Loading…</div>}</Page>;
  return <TransformEditor key={t.id} transform={t} onSaved={() => refetch({ requestPolicy: 'network-only' })} />;
}

function TransformEditor({ transform, onSaved }: { transform: Transform; onSaved: () => void }) {
  const canWrite = useCan('write');
  const [expression, setExpression] = useState(transform.expression);
  const [source, setSource] = useState<PreviewSource>({ invalid: '' });
  return (
    <NamedResourceEditor
      list={{ href: '/transforms', title: 'Transforms' }}
      id={transform.id}
      savedName={transform.name}
      update={UPDATE}
      remove={DELETE}
      formLabel="Transform"
      input={{ expression }}
      errorFields={['expression']}
      onSaved={onSaved}
      fields={(saveError) => (
        <Field label="Expression (JSONata)" field="expression" error={saveError} hint='The payload is the input: repository.name, $count(commits), { "key": value }…'>
          <textarea className="code" aria-label="Expression" value={expression} onChange={(e) => setExpression(e.target.value)} rows={14} spellCheck={false} readOnly={!canWrite} />
        </Field>
      )}
      aside={
        <>
          <PreviewSourcePicker onChange={setSource} />
          <TransformResult expression={expression} source={source} />
        </>
      }
    />
  );
}

function TransformResult({ expression, source }: { expression: string; source: PreviewSource }) {
  const settled = JSON.parse(useDebounced(JSON.stringify({ expression, source }))) as { expression: string; source: PreviewSource };
  const runnable = settled.expression.trim() !== '' && !('invalid' in settled.source);
  const [{ data, error, fetching }] = useProjectQuery<{ previewTransform: TransformPreview }>(
    PREVIEW,
    { input: { expression: settled.expression, ...settled.source } },
    { pause: !runnable, requestPolicy: 'network-only' },
  );
  if (!runnable) return <div className="muted">Write an expression and pick a valid payload to run it.</div>;
  const preview = data?.previewTransform;
  return (
    <section aria-label="Result" aria-busy={fetching}>
      <h2>Result {fetching && <span className="muted">…</span>}</h2>
      <ErrorMessage error={error} />
      {preview?.error && (
        <div className="error" role="alert" data-testid="transform-error">
          {preview.error.message} <span className="muted">({preview.error.code})</span>
          {preview.error.position != null && <ErrorPointer expression={settled.expression} position={preview.error.position} />}
        </div>
      )}
      {preview && !preview.error && <JsonView value={preview.result} label="Copy result" />}
    </section>
  );
}

/** The line of the expression holding jsonata's `position` (a 1-based character count) with a caret under it. */
function ErrorPointer({ expression, position }: { expression: string; position: number }) {
  const index = Math.max(0, Math.min(expression.length, position) - 1);
  const lineStart = expression.lastIndexOf('\n', index - 1) + 1;
  const lineEnd = expression.indexOf('\n', index);
  const line = expression.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  const lineNumber = expression.slice(0, lineStart).split('\n').length;
  const column = index - lineStart + 1;
  return (
    <>
      <div>
        at line {lineNumber}, column {column} (character {position})
      </div>
      <pre className="error-pointer" data-testid="error-pointer">
        {line}
        {'\n'}
        <span className="caret">{`${' '.repeat(column - 1)}^`}</span>
      </pre>
    </>
  );
}
