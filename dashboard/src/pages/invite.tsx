import type { ReactNode } from 'react';
import { gql, useClient, useMutation, useQuery } from 'urql';
import { useLocation } from 'wouter';
import { ErrorMessage } from '../components';
import { logout } from '../lib/auth';
import { errorMessage } from '../lib/graphql';
import { rememberProject } from '../lib/session';
import { HOME } from '../routes';
import { SignInPage } from './sign-in';

/** The invite link's path: `/invite/<token>` (the API's `url` of a created invite). */
export const INVITE_PATH = /^\/invite\/([^/]+)$/;

interface InvitePreview {
  organizationId: string;
  organizationName: string;
  email: string;
  role: string;
  expiresAt: string;
}

const PREVIEW = gql`query InvitePreview($token: String!) { invitePreview(token: $token) { organizationId organizationName email role expiresAt } }`;
const ACCEPT = gql`mutation AcceptInvite($token: String!) { acceptInvite(token: $token) { id organizationId } }`;
const PROJECTS = gql`query InviteProjects { projects(limit: 200) { data { id organizationId } } }`;

/**
 * The invite link's page, signed in or out. Signed out: sign up through the invite (password or
 * OAuth; the account joins the inviting organization and gets no default workspace), or log in
 * and accept. Signed in: accept, which joins and switches to that organization. An expired,
 * used, revoked or unknown token gets the API's message instead.
 */
export function InvitePage({ token, signedIn }: { token: string; signedIn: boolean }) {
  const [, navigate] = useLocation();
  const [{ data, error, fetching }] = useQuery<{ invitePreview: InvitePreview }>({ query: PREVIEW, variables: { token }, requestPolicy: 'network-only' });
  const invite = data?.invitePreview;

  if (fetching && !invite) return <InviteCard title="Opening your invite…" />;
  if (!invite) {
    return (
      <InviteCard title="This invite cannot be used">
        <p className="error" role="alert">
          {errorMessage(error) ?? 'This invite cannot be used.'}
        </p>
        <button type="button" className="link" onClick={() => navigate('/', { replace: true })}>
          {signedIn ? 'Go to the dashboard' : 'Go to sign in'}
        </button>
      </InviteCard>
    );
  }
  if (!signedIn) {
    // Leave the invite's page before the session starts: the spent token would otherwise be looked up again.
    return <SignInPage invite={{ token, ...invite, onJoined: () => navigate(HOME, { replace: true }) }} />;
  }
  return <AcceptInvite token={token} invite={invite} />;
}

function AcceptInvite({ token, invite }: { token: string; invite: InvitePreview }) {
  const [, navigate] = useLocation();
  const client = useClient();
  const [accepted, accept] = useMutation<{ acceptInvite: { organizationId: string } }>(ACCEPT);
  const join = async () => {
    if (!(await accept({ token })).data) return;
    // Switch to the organization just joined: its first project becomes the current one.
    const projects = await client.query<{ projects: { data: { id: string; organizationId: string }[] } }>(PROJECTS, {}, { requestPolicy: 'network-only' }).toPromise();
    const first = projects.data?.projects.data.find((p) => p.organizationId === invite.organizationId);
    if (first) rememberProject(first.id);
    navigate(HOME, { replace: true });
  };
  return (
    <InviteCard title={`Join ${invite.organizationName}`}>
      <p data-testid="invite-summary">
        You are invited to <strong>{invite.organizationName}</strong> as <strong>{invite.role}</strong> (sent to {invite.email}).
      </p>
      <ErrorMessage error={accepted.error} />
      <button type="button" className="primary" disabled={accepted.fetching} onClick={() => void join()}>
        Accept and join
      </button>
      <p className="muted">
        Not {invite.email}?{' '}
        <button type="button" className="link" onClick={() => void logout()}>
          Log out
        </button>{' '}
        and open the link again to sign up or log in as that address.
      </p>
      <button type="button" className="link" onClick={() => navigate(HOME, { replace: true })}>
        Not now: back to the dashboard
      </button>
    </InviteCard>
  );
}

function InviteCard({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <main className="auth">
      <div className="card auth-card">
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
