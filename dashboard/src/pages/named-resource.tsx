import { useState, type FormEvent, type ReactNode } from 'react';
import type { CombinedError, DocumentInput } from 'urql';
import { Link, useLocation } from 'wouter';
import { Can, type Column, ConfirmButton, EmptyState, ErrorMessage, Field, Page, Pager, Table, useCursorPager } from '../components';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';
import { useCan } from '../lib/session';
import './editor.css';

interface Named {
  id: string;
  name: string;
}

interface ListProps<Row extends Named> {
  /** `templates`: the query field of LIST, the create mutation `createTemplate`, the pages under `/templates`. */
  plural: string;
  singular: string;
  title: string;
  /** Takes `{ cursor }`; answers `{ [plural]: { data, nextCursor } }`. */
  list: DocumentInput;
  /** Takes `{ input }` (the name and `starter`); answers `{ create<Singular>: { id } }`. */
  create: DocumentInput;
  starter: Record<string, unknown>;
  intro: ReactNode;
  placeholder: string;
  empty: { title: string; text: ReactNode };
  columns: Column<Row>[];
}

/** The list page of a named resource (templates, transforms): what it is, a create form that opens the new one's editor, the paged list. */
export function NamedResourceList<Row extends Named>({ plural, singular, title, list, create, starter, intro, placeholder, empty, columns }: ListProps<Row>) {
  const pager = useCursorPager();
  const [{ data, error, fetching }] = useProjectQuery<Record<string, { data: Row[]; nextCursor: string | null }>>(list, { cursor: pager.cursor });
  const [name, setName] = useState('');
  const [created, run] = useProjectMutation<Record<string, { id: string }>>(create);
  const [, navigate] = useLocation();
  const createField = `create${singular.charAt(0).toUpperCase()}${singular.slice(1)}`;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await run({ input: { name, ...starter } });
    if (result.data) navigate(`/${plural}/${result.data[createField].id}`);
  };
  const page = data?.[plural];
  return (
    <Page title={title}>
      <p className="muted">{intro}</p>
      <Can permission="write">
        <form className="row card" onSubmit={submit} aria-label={`New ${singular}`}>
          <Field label={`New ${singular}`} field="name" error={created.error}>
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder={placeholder} required />
          </Field>
          <button type="submit" className="primary" disabled={created.fetching}>
            Create and edit
          </button>
          <ErrorMessage error={created.error} fields={['name']} />
        </form>
      </Can>
      <ErrorMessage error={error} />
      <Table
        label={title}
        rows={page?.data ?? []}
        rowKey={(row) => row.id}
        onRowClick={(row) => navigate(`/${plural}/${row.id}`)}
        empty={fetching ? <div className="loading">Loading…</div> : !error && <EmptyState title={empty.title}>{empty.text}</EmptyState>}
        columns={[{ header: 'Name', cell: (row) => <Link href={`/${plural}/${row.id}`}>{row.name}</Link> }, ...columns]}
      />
      <Pager pager={pager} nextCursor={page?.nextCursor} />
    </Page>
  );
}

interface Props {
  /** The list page the breadcrumb and a delete lead back to. */
  list: { href: string; title: string };
  id: string;
  savedName: string;
  /** Mutations taking `{ id, input }` and `{ id }`. */
  update: DocumentInput;
  remove: DocumentInput;
  formLabel: string;
  /** What is saved beside the name; null while the form cannot be saved (e.g. JSON that does not parse). */
  input: Record<string, unknown> | null;
  /** The fields the caller's `fields` show errors under (other errors show above the Save button). */
  errorFields: string[];
  onSaved: () => void;
  /** The fields after Name, given the last save's error so that each shows its own. */
  fields: (saveError: CombinedError | undefined) => ReactNode;
  /** The live preview beside the form. */
  aside: ReactNode;
}

/** The editor page of a named resource (templates, transforms): breadcrumb and Delete, the form with Name and Save, a preview beside it. */
export function NamedResourceEditor({ list, id, savedName, update, remove, formLabel, input, errorFields, onSaved, fields, aside }: Props) {
  const canWrite = useCan('write');
  const [name, setName] = useState(savedName);
  const [saved, save] = useProjectMutation(update);
  const [deleted, del] = useProjectMutation(remove);
  const [justSaved, setJustSaved] = useState(false);
  const [, navigate] = useLocation();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setJustSaved(false);
    if (!input) return;
    const result = await save({ id, input: { name, ...input } });
    setJustSaved(!!result.data);
    if (result.data) onSaved();
  };

  return (
    <Page
      title={
        <>
          <Link href={list.href}>{list.title}</Link> / {savedName}
        </>
      }
      actions={
        <Can permission="write">
          <ConfirmButton danger onConfirm={async () => (await del({ id })).data && navigate(list.href)}>
            Delete
          </ConfirmButton>
        </Can>
      }
    >
      <ErrorMessage error={deleted.error} />
      <div className="editor-grid">
        <form className="form" onSubmit={submit} aria-label={formLabel}>
          <Field label="Name" field="name" error={saved.error}>
            <input value={name} onChange={(e) => setName(e.target.value)} readOnly={!canWrite} />
          </Field>
          {fields(saved.error)}
          <ErrorMessage error={saved.error} fields={['name', ...errorFields]} />
          <Can permission="write">
            <div className="row">
              <button type="submit" className="primary" disabled={saved.fetching || !input}>
                Save
              </button>
              {justSaved && <span className="muted">Saved.</span>}
            </div>
          </Can>
        </form>
        <div>{aside}</div>
      </div>
    </Page>
  );
}
