import type { AppContainer } from '../app/container';
import { isAllowedClientRedirect } from './client-sign-in.service';

const container = { config: { publicBaseUrl: 'https://relay.example.com' } } as AppContainer;
const allowed = (uri: string) => isAllowedClientRedirect(container, uri);

describe('isAllowedClientRedirect', () => {
  it('accepts a loopback address with a port (the CLI) and exactly the dashboard callback on the public origin', () => {
    expect(allowed('http://127.0.0.1:53682/callback')).toBe(true);
    expect(allowed('http://[::1]:53682/callback')).toBe(true);
    expect(allowed('http://localhost:53682/x')).toBe(true);
    expect(allowed('https://relay.example.com/oauth/callback')).toBe(true);
  });

  it('refuses anything that could carry the code elsewhere', () => {
    for (const uri of [
      'https://relay.example.com/oauth/callback/x',
      'https://relay.example.com/oauth/callbackx',
      'https://relay.example.com/oauth/callback?next=https://evil.example',
      'https://relay.example.com/oauth/callback#x',
      'https://relay.example.com/',
      'http://relay.example.com/oauth/callback',
      'https://relay.example.com.evil.example/oauth/callback',
      'https://user@relay.example.com/oauth/callback',
      'https://evil.example/oauth/callback',
      'https://127.0.0.1:5000/callback',
      'http://127.0.0.1/callback',
      'http://127.0.0.1.evil.example:5000/cb',
      'http://user@127.0.0.1:5000/cb',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect([uri, allowed(uri)]).toEqual([uri, false]);
    }
  });
});
