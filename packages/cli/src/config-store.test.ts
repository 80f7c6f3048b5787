import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError } from './cli-errors';
import { ConfigStore, configPath, DEFAULT_API_URL, profileName, resolveApiUrl } from './config-store';

describe('the CLI config file', () => {
  let home: string;
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-config-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('lives under $XDG_CONFIG_HOME/relay, else ~/.config/relay', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x/conf' })).toBe('/x/conf/relay/config.json');
    expect(configPath({})).toBe(path.join(os.homedir(), '.config', 'relay', 'config.json'));
    // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
    expect(configPath({ XDG_CONFIG_HOME: 'rel' })).toBe(path.join(os.homedir(), '.config', 'relay', 'config.json'));
  });

  it('is written 0600 in a 0700 directory, also over a file that was wider', () => {
    const store = new ConfigStore(configPath({ XDG_CONFIG_HOME: home }));
    store.write({ api_url: 'http://a', access_token: 'at', refresh_token: 'rt', access_token_expires_at: new Date().toISOString() });
    expect((fs.statSync(store.file).mode & 0o777).toString(8)).toBe('600');
    expect((fs.statSync(path.dirname(store.file)).mode & 0o777).toString(8)).toBe('700');
    fs.chmodSync(store.file, 0o644);
    store.write({ api_url: 'http://b' });
    expect((fs.statSync(store.file).mode & 0o777).toString(8)).toBe('600');
    expect(store.read()).toEqual({ api_url: 'http://b' });
    expect(fs.readdirSync(path.dirname(store.file))).toEqual(['config.json']);
  });

  it('forgets the tokens on logout but keeps api_url; a damaged file reads as logged out', () => {
    const store = new ConfigStore(path.join(home, 'relay', 'config.json'));
    expect(store.read()).toBeUndefined();
    store.write({ api_url: 'http://a', access_token: 'at', refresh_token: 'rt' });
    store.clearSession();
    expect(store.read()).toEqual({ api_url: 'http://a' });
    fs.writeFileSync(store.file, '{not json');
    expect(store.read()).toBeUndefined();
  });

  it('picks the API: --api-url, RELAY_API_URL, the stored one, the default', () => {
    const stored = { api_url: 'http://stored:1' };
    expect(resolveApiUrl('http://flag:2/', stored, { RELAY_API_URL: 'http://env:3' })).toBe('http://flag:2');
    expect(resolveApiUrl(undefined, stored, { RELAY_API_URL: 'http://env:3' })).toBe('http://env:3');
    expect(resolveApiUrl(undefined, stored, {})).toBe('http://stored:1');
    expect(resolveApiUrl(undefined, undefined, {})).toBe(DEFAULT_API_URL);
    expect(() => resolveApiUrl('ftp://x', undefined, {})).toThrow(CliError);
    expect(() => resolveApiUrl('not a url', undefined, {})).toThrow(/invalid API URL/);
  });
});

describe('profiles', () => {
  let home: string;
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-profiles-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('keeps several logins side by side in one file, the default one at the top level', () => {
    const file = path.join(home, 'relay', 'config.json');
    const main = new ConfigStore(file);
    const work = new ConfigStore(file, 'work');
    main.write({ api_url: 'http://a', access_token: 'at', refresh_token: 'rt' });
    work.write({ api_url: 'http://b', api_key: 'svc_x' });
    expect(main.read()).toEqual({ api_url: 'http://a', access_token: 'at', refresh_token: 'rt' });
    expect(work.read()).toEqual({ api_url: 'http://b', api_key: 'svc_x' });
    expect(new ConfigStore(file, 'other').read()).toBeUndefined();
    main.clearSession();
    expect(work.read()).toEqual({ api_url: 'http://b', api_key: 'svc_x' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ api_url: 'http://a', profiles: { work: { api_url: 'http://b', api_key: 'svc_x' } } });
  });

  it('takes --profile, else RELAY_PROFILE, else "default"; refuses odd names', () => {
    expect(profileName(undefined, {})).toBe('default');
    expect(profileName(undefined, { RELAY_PROFILE: 'ci' })).toBe('ci');
    expect(profileName('work', { RELAY_PROFILE: 'ci' })).toBe('work');
    expect(() => profileName('../x', {})).toThrow(/invalid profile/);
  });
});
