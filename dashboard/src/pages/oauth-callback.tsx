import { useEffect, useState } from 'react';
import { gql, useClient } from 'urql';
import { useLocation } from 'wouter';
import { storeSession, type Session } from '../lib/auth';
import { errorMessage } from '../lib/graphql';
import { takePkceVerifier } from '../lib/oauth';
import { HOME } from '../routes';

const EXCHANGE = gql`
  mutation ExchangeOAuthCode($code: String!, $codeVerifier: String!) { exchangeOAuthCode(code: $code, codeVerifier: $codeVerifier) { accessToken refreshToken expiresIn } }
`;

/** The code is single-use: one exchange per code, even when React runs the effect twice. */
const exchanges = new Map<string, Promise<string | null>>();

/**
 * Where the API's OAuth callback sends the browser: `?code=…` is exchanged, with the verifier
 * this tab kept, for a session; `?error=…&error_description=…` is shown.
 */
export function OAuthCallbackPage() {
  const client = useClient();
  const [, navigate] = useLocation();
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const code = params.get('code');
    if (!code) {
      setProblem(params.get('error_description') ?? params.get('error') ?? 'The sign-in came back without a code.');
      return;
    }
    let exchange = exchanges.get(code);
    if (!exchange) {
      const codeVerifier = takePkceVerifier();
      exchange = !codeVerifier
        ? Promise.resolve('This sign-in was started in another tab or browser: start it again here.')
        : client
            .mutation<{ exchangeOAuthCode: Session }>(EXCHANGE, { code, codeVerifier })
            .toPromise()
            .then((result) => {
              if (!result.data) return errorMessage(result.error) ?? 'Sign-in failed.';
              // Leave the callback's URL first (the app shows this page while on it), replacing the code in the history.
              navigate(HOME, { replace: true });
              storeSession(result.data.exchangeOAuthCode);
              return null;
            });
      exchanges.set(code, exchange);
    }
    void exchange.then(setProblem);
  }, [client, navigate]);

  return (
    <main className="auth">
      <div className="card auth-card">
        <h1>{problem ? 'Sign-in failed' : 'Signing in…'}</h1>
        {problem && (
          <>
            <p className="error" role="alert">
              {problem}
            </p>
            <button type="button" className="link" onClick={() => navigate('/', { replace: true })}>
              Back to sign in
            </button>
          </>
        )}
      </div>
    </main>
  );
}
