import { loadConfig } from '../config/config';
import { parseOAuthProviders } from './oauth-config';

describe('OAuth provider configuration', () => {
  const full = {
    OAUTH_CODEHOST_A_CLIENT_ID: 'id',
    OAUTH_CODEHOST_A_CLIENT_SECRET: 'secret',
    OAUTH_CODEHOST_A_AUTHORIZE_URL: 'https://auth.example.test/authorize',
    OAUTH_CODEHOST_A_TOKEN_URL: 'https://auth.example.test/token',
  };

  it('enables exactly the providers whose CLIENT_ID is set, with defaults', () => {
    const providers = parseOAuthProviders({ ...full, OAUTH_CODEHOST_A_SCOPES: 'repo, read:user  admin' });
    expect(Object.keys(providers)).toEqual(['codehost_a']);
    expect(providers.codehost_a).toEqual({
      provider: 'codehost_a',
      clientId: 'id',
      clientSecret: 'secret',
      authorizeUrl: full.OAUTH_CODEHOST_A_AUTHORIZE_URL,
      tokenUrl: full.OAUTH_CODEHOST_A_TOKEN_URL,
      userinfoUrl: undefined,
      scopes: ['repo', 'read:user', 'admin'],
      clientAuth: 'basic',
    });
    expect(parseOAuthProviders({})).toEqual({});
  });

  it('names the variable that is missing or wrong, through loadConfig', () => {
    const load = (env: Record<string, string>) => () => loadConfig({ NODE_ENV: 'test', ...env });
    const { OAUTH_CODEHOST_A_TOKEN_URL: _omit, ...noToken } = full;
    expect(load(noToken)).toThrow(/^OAUTH_CODEHOST_A_TOKEN_URL: required/);
    expect(load({ ...full, OAUTH_CODEHOST_A_CLIENT_SECRET: '' })).toThrow(/^OAUTH_CODEHOST_A_CLIENT_SECRET/);
    expect(load({ ...full, OAUTH_CODEHOST_A_AUTHORIZE_URL: 'ftp://x' })).toThrow(/^OAUTH_CODEHOST_A_AUTHORIZE_URL: must be an http\(s\) URL/);
    expect(load({ ...full, OAUTH_CODEHOST_A_CLIENT_AUTH: 'jwt' })).toThrow(/^OAUTH_CODEHOST_A_CLIENT_AUTH/);
    expect(loadConfig({ NODE_ENV: 'test', ...full, OAUTH_CODEHOST_A_CLIENT_AUTH: 'POST' }).oauthProviders.codehost_a?.clientAuth).toBe('post');
  });
});
