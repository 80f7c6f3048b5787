import { useState, type FormEvent } from 'react';
import { gql } from 'urql';
import { Can, ConfirmButton, EmptyState, ErrorMessage, Field, Page, Pager, SecretOnce, Table, Time, useCursorPager } from '../components';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';

/** The project's API keys: create (the key is shown once), list by prefix, revoke. */

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

const LIST = gql`query ApiKeys($projectId: ID, $cursor: String) {
  apiKeys(projectId: $projectId, cursor: $cursor, limit: 50, includeRevoked: true) { data { id name prefix createdAt revokedAt } nextCursor } }`;
const CREATE = gql`mutation CreateApiKey($projectId: ID, $name: String!) { createApiKey(projectId: $projectId, name: $name) { id key } }`;
const REVOKE = gql`mutation RevokeApiKey($projectId: ID, $id: ID!) { revokeApiKey(projectId: $projectId, id: $id) { id revokedAt } }`;

export function ApiKeysPage() {
  const pager = useCursorPager();
  const [{ data, error, fetching }, refetch] = useProjectQuery<{ apiKeys: { data: ApiKey[]; nextCursor: string | null } }>(LIST, { cursor: pager.cursor });
  const [name, setName] = useState('');
  const [key, setKey] = useState<string | null>(null);
  const [created, create] = useProjectMutation<{ createApiKey: { id: string; key: string } }>(CREATE);
  const [revoked, revoke] = useProjectMutation(REVOKE);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await create({ name });
    if (!result.data) return;
    setKey(result.data.createApiKey.key);
    setName('');
    reload();
  };
  return (
    <Page title="API keys">
      <p className="muted">
        A project API key acts as a developer of this project: use it as <code>Authorization: Bearer svc_…</code> for <code>/v1</code>, GraphQL, or to send events to endpoints.
      </p>
      <Can permission="write">
        <form className="card" onSubmit={submit} aria-label="New API key">
          <div className="filters">
            <Field label="Name" field="name" error={created.error}>
              <input value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. CI deploys" required />
            </Field>
            <button type="submit" className="primary" disabled={created.fetching}>
              Create key
            </button>
          </div>
          <ErrorMessage error={created.error} fields={['name']} />
          {key && <SecretOnce label="New API key" value={key} onDone={() => setKey(null)} />}
        </form>
      </Can>
      <ErrorMessage error={error ?? revoked.error} />
      <Table
        label="API keys"
        rows={data?.apiKeys.data ?? []}
        rowKey={(k) => k.id}
        empty={fetching ? <div className="loading">Loading…</div> : !error && <EmptyState title="No API keys yet">Create one above for scripts, CI or another service; it is shown once.</EmptyState>}
        columns={[
          { header: 'Name', cell: (k) => k.name },
          { header: 'Prefix', cell: (k) => `${k.prefix}…`, className: 'mono' },
          { header: 'Created', cell: (k) => <Time value={k.createdAt} /> },
          { header: 'Status', cell: (k) => (k.revokedAt ? <span className="badge muted">revoked</span> : <span className="badge ok">active</span>) },
          {
            header: '',
            cell: (k) =>
              !k.revokedAt && (
                <Can permission="write">
                  <ConfirmButton danger confirmText="Revoke: it stops working now" onConfirm={async () => (await revoke({ id: k.id })).data && reload()}>
                    Revoke
                  </ConfirmButton>
                </Can>
              ),
          },
        ]}
      />
      <Pager pager={pager} nextCursor={data?.apiKeys.nextCursor} />
    </Page>
  );
}
