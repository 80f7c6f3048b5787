import { useState, type FormEvent } from 'react';
import { gql, useMutation, useQuery } from 'urql';
import { Can, ConfirmButton, EmptyState, ErrorMessage, Field, Page, SecretOnce, StatusBadge, Table, Time } from '../components';
import { useCan, useWorkspace, type Role } from '../lib/session';

/** The current organization's members and invites (docs/concepts.md#organizations-projects-and-roles: admins manage members, owners manage owners). */

interface Member {
  id: string;
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  createdAt: string;
}
interface Invite {
  id: string;
  email: string;
  role: Role;
  status: string;
  expiresAt: string;
  createdAt: string;
}

const ROLES: Role[] = ['viewer', 'developer', 'admin', 'owner'];

const MEMBERS = gql`query Members($organizationId: ID!) {
  members(organizationId: $organizationId, limit: 200) { data { id userId email name role createdAt } } }`;
/** Admins only: the page does not ask for what the role would be refused. */
const INVITES = gql`query Invites($organizationId: ID!) {
  invites(organizationId: $organizationId, limit: 200) { data { id email role status expiresAt createdAt } } }`;
const CHANGE_ROLE = gql`mutation ChangeMemberRole($organizationId: ID!, $memberId: ID!, $role: String!) {
  changeMemberRole(organizationId: $organizationId, memberId: $memberId, role: $role) { id role } }`;
const REMOVE = gql`mutation RemoveMember($organizationId: ID!, $memberId: ID!) { removeMember(organizationId: $organizationId, memberId: $memberId) }`;
const INVITE = gql`mutation CreateInvite($organizationId: ID!, $email: String!, $role: String!) {
  createInvite(organizationId: $organizationId, email: $email, role: $role) { id token } }`;
const REVOKE = gql`mutation RevokeInvite($organizationId: ID!, $inviteId: ID!) { revokeInvite(organizationId: $organizationId, inviteId: $inviteId) }`;

export function MembersPage() {
  const { organization, user } = useWorkspace();
  const isAdmin = useCan('admin');
  const isOwner = useCan('owner');
  const variables = { organizationId: organization.id };
  const [{ data, error, fetching }, refetchMembers] = useQuery<{ members: { data: Member[] } }>({ query: MEMBERS, variables });
  const [invites, refetchInvites] = useQuery<{ invites: { data: Invite[] } }>({ query: INVITES, variables, pause: !isAdmin });
  const [changed, changeRole] = useMutation(CHANGE_ROLE);
  const [removed, remove] = useMutation(REMOVE);
  const [revoked, revoke] = useMutation(REVOKE);
  const reload = () => {
    refetchMembers({ requestPolicy: 'network-only' });
    if (isAdmin) refetchInvites({ requestPolicy: 'network-only' });
  };
  // Admins manage everyone but owners; only owners grant or change the owner role.
  const manageable = (m: Member) => m.userId !== user.id && (isOwner || (isAdmin && m.role !== 'owner'));
  const grantable = ROLES.filter((r) => isOwner || r !== 'owner');
  const pending = (invites.data?.invites.data ?? []).filter((i) => i.status === 'pending');

  return (
    <Page title={`Members of ${organization.name}`}>
      <Can permission="admin">
        <InviteForm organizationId={organization.id} roles={grantable} onInvited={reload} />
      </Can>
      <ErrorMessage error={error ?? invites.error ?? changed.error ?? removed.error ?? revoked.error} />
      <Table
        label="Members"
        rows={data?.members.data ?? []}
        rowKey={(m) => m.id}
        empty={fetching ? <div className="loading">Loading…</div> : !error && <EmptyState title="No members">Invite someone above.</EmptyState>}
        columns={[
          { header: 'Email', cell: (m) => m.email },
          { header: 'Name', cell: (m) => m.name ?? <span className="muted">—</span>, className: 'hide-narrow' },
          {
            header: 'Role',
            cell: (m) =>
              manageable(m) ? (
                <select aria-label={`Role of ${m.email}`} value={m.role} onChange={async (e) => (await changeRole({ ...variables, memberId: m.id, role: e.target.value })).data && reload()}>
                  {ROLES.filter((r) => grantable.includes(r) || r === m.role).map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
              ) : (
                <span className="badge">{m.role}</span>
              ),
          },
          { header: 'Since', cell: (m) => <Time value={m.createdAt} />, className: 'hide-narrow' },
          {
            header: '',
            cell: (m) =>
              manageable(m) && (
                <ConfirmButton danger onConfirm={async () => (await remove({ ...variables, memberId: m.id })).data && reload()}>
                  Remove
                </ConfirmButton>
              ),
          },
        ]}
      />
      {isAdmin && <PendingInvites invites={pending} organizationId={organization.id} revoke={revoke} reload={reload} />}
    </Page>
  );
}

function PendingInvites(props: { invites: Invite[]; organizationId: string; revoke: (vars: { organizationId: string; inviteId: string }) => Promise<{ data?: unknown }>; reload: () => void }) {
  const { invites, organizationId, revoke, reload } = props;
  return (
    <>
      <h2>Pending invites</h2>
      <Table
        label="Pending invites"
        rows={invites}
        rowKey={(i) => i.id}
        empty={
          <EmptyState title="No pending invites">Invite someone with the form above and send them the invite link: they join with the role you pick when they open it.</EmptyState>
        }
        columns={[
          { header: 'Email', cell: (i) => i.email },
          { header: 'Role', cell: (i) => <span className="badge">{i.role}</span> },
          { header: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
          { header: 'Expires', cell: (i) => <Time value={i.expiresAt} /> },
          {
            header: '',
            cell: (i) => (
              <ConfirmButton danger onConfirm={async () => (await revoke({ organizationId, inviteId: i.id })).data && reload()}>
                Revoke
              </ConfirmButton>
            ),
          },
        ]}
      />
    </>
  );
}

function InviteForm({ organizationId, roles, onInvited }: { organizationId: string; roles: Role[]; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [token, setToken] = useState<string | null>(null);
  const [state, invite] = useMutation<{ createInvite: { id: string; token: string } }>(INVITE);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await invite({ organizationId, email, role });
    if (!result.data) return;
    setToken(result.data.createInvite.token);
    setEmail('');
    onInvited();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Invite">
      <div className="filters">
        <Field label="Email" field="email" error={state.error}>
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </Field>
        <Field label="Role" field="role" error={state.error}>
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {roles.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </Field>
        <button type="submit" className="primary" disabled={state.fetching}>
          Invite
        </button>
      </div>
      <ErrorMessage error={state.error} fields={['email', 'role']} />
      {token && (
        <SecretOnce
          label="Invite link (send it to the invitee: they sign up through it, or accept it when signed in; its last part is the invite token)"
          value={`${window.location.origin}/invite/${token}`}
          onDone={() => setToken(null)}
        />
      )}
    </form>
  );
}
