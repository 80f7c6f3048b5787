import { useState, type FormEvent } from 'react';
import { gql, useMutation, useQuery } from 'urql';
import { useLocation } from 'wouter';
import { ErrorMessage, Field } from '../components';
import { storeSession, type Session } from '../lib/auth';
import { newPkceChallenge, oauthRedirectUri } from '../lib/oauth';

const SERVICE_INFO = gql`
  query ServiceInfo { serviceInfo { name version oauthProviders } }
`;
const LOGIN = gql`
  mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken refreshToken expiresIn } }
`;
const SIGNUP = gql`
  mutation Signup($input: SignupInput!) { signup(input: $input) { accessToken refreshToken expiresIn } }
`;
const START_OAUTH = gql`
  mutation StartOAuth($provider: String!, $redirectUri: String!, $challenge: String!, $inviteToken: String) {
    startOAuthSignIn(provider: $provider, clientRedirectUri: $redirectUri, clientCodeChallenge: $challenge, inviteToken: $inviteToken) { authorizationUrl }
  }
`;

/** An invite the page signs up through (the invite link's page): the account joins its organization, nothing else is created. */
export interface SignInInvite {
  token: string;
  email: string;
  organizationName: string;
  role: string;
  /** After a sign-up through the invite (before the session is stored): leave the invite's page. */
  onJoined: () => void;
}

/**
 * Log in or sign up with email and password; one button per configured OAuth provider.
 * With `invite`, sign-up comes first, for the invited email, and both sign-up and OAuth carry the token.
 */
export function SignInPage({ invite }: { invite?: SignInInvite } = {}) {
  const [mode, setMode] = useState<'login' | 'signup'>(invite ? 'signup' : 'login');
  const [email, setEmail] = useState(invite?.email ?? '');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [{ data: info }] = useQuery<{ serviceInfo: { name: string; version: string; oauthProviders: string[] } }>({ query: SERVICE_INFO });
  const [login, doLogin] = useMutation<{ login: Session }>(LOGIN);
  const [signup, doSignup] = useMutation<{ signup: Session }>(SIGNUP);
  const [oauth, startOAuth] = useMutation<{ startOAuthSignIn: { authorizationUrl: string } }>(START_OAUTH);
  const current = mode === 'login' ? login : signup;
  const [, navigate] = useLocation();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result =
      mode === 'login'
        ? (await doLogin({ email, password })).data?.login
        : (await doSignup({ input: { email, password, name: name || undefined, inviteToken: invite?.token } })).data?.signup;
    if (!result) return;
    if (mode === 'signup') {
      // A new account's project is empty: its first page is the guide to a delivered webhook. One joining through an invite has its team's.
      if (invite) invite.onJoined();
      else navigate('/start', { replace: true });
    }
    storeSession(result);
  };

  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={submit} aria-label={mode === 'login' ? 'Log in' : 'Sign up'}>
        <h1>{mode === 'login' ? 'Log in to relay' : invite ? `Join ${invite.organizationName}` : 'Create your relay account'}</h1>
        {invite && (
          <p data-testid="invite-summary">
            You are invited to <strong>{invite.organizationName}</strong> as <strong>{invite.role}</strong>.{' '}
            {mode === 'signup' ? 'Create your account to join.' : `Log in as ${invite.email} to accept.`}
          </p>
        )}
        {mode === 'signup' && (
          <Field label="Name (optional)" field="name" error={current.error}>
            <input name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
        )}
        <Field label="Email" field="email" error={current.error}>
          <input name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password" field="password" error={current.error} hint={mode === 'signup' ? 'At least 8 characters.' : undefined}>
          <input
            name="password"
            type="password"
            autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <ErrorMessage error={current.error} fields={['email', 'password', 'name']} />
        <button type="submit" className="primary" disabled={current.fetching}>
          {mode === 'login' ? 'Log in' : 'Sign up'}
        </button>
        {info && info.serviceInfo.oauthProviders.length > 0 && (
          <div className="oauth">
            {info.serviceInfo.oauthProviders.map((provider) => (
              <button
                key={provider}
                type="button"
                onClick={async () => {
                  // The API's callback sends the browser back to /oauth/callback with a code only this tab can exchange.
                  const challenge = await newPkceChallenge();
                  const url = (await startOAuth({ provider, redirectUri: oauthRedirectUri(), challenge, inviteToken: invite?.token })).data?.startOAuthSignIn
                    .authorizationUrl;
                  if (url) window.location.assign(url);
                }}
              >
                Continue with {provider}
              </button>
            ))}
            <ErrorMessage error={oauth.error} />
          </div>
        )}
        <p className="muted">
          {mode === 'login' ? 'No account yet? ' : 'Already have an account? '}
          <button type="button" className="link" onClick={() => setMode(mode === 'login' ? 'signup' : 'login')}>
            {mode === 'login' ? 'Sign up' : 'Log in'}
          </button>
        </p>
        {info && <p className="muted small-print">{info.serviceInfo.name} {info.serviceInfo.version}</p>}
      </form>
    </main>
  );
}
