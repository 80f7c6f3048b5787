import { useState, type FormEvent, type ReactNode } from 'react';
import type { CombinedError, DocumentInput } from 'urql';
import { Link, useLocation } from 'wouter';
import { Can, ConfirmButton, ErrorMessage, Field, Page } from '../components';
import { useProjectMutation } from '../lib/hooks';
import { useCan } from '../lib/session';
import './editor.css';

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
export function ResourceEditor({ list, id, savedName, update, remove, formLabel, input, errorFields, onSaved, fields, aside }: Props) {
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
