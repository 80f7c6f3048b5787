import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from './config-error';
import { applyEnvFile, parseEnvFile } from './env-file';

describe('applyEnvFile', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-env-file-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads .env into the environment, the real environment winning', () => {
    fs.writeFileSync(path.join(dir, '.env'), '# a comment\nPORT=4100\nLOG_LEVEL="debug"\nPUBLIC_BASE_URL=http://relay.test\n');
    const env: NodeJS.ProcessEnv = { PORT: '4200' };
    const file = applyEnvFile(env, dir);
    expect(env).toEqual({ PORT: '4200', LOG_LEVEL: 'debug', PUBLIC_BASE_URL: 'http://relay.test' });
    expect(file).toEqual({ path: path.join(dir, '.env'), applied: ['LOG_LEVEL', 'PUBLIC_BASE_URL'], overridden: ['PORT'] });
  });

  it('does nothing without a .env file', () => {
    const env: NodeJS.ProcessEnv = { PORT: '4200' };
    expect(applyEnvFile(env, dir)).toBeUndefined();
    expect(env).toEqual({ PORT: '4200' });
  });

  it('applies nothing from a file with a line that is not a setting', () => {
    fs.writeFileSync(path.join(dir, '.env'), 'PORT=4100\nRELAY_JWT_SECRET s3cr3t\n');
    const env: NodeJS.ProcessEnv = {};
    expect(() => applyEnvFile(env, dir)).toThrow(ConfigError);
    expect(env).toEqual({});
  });
});

describe('parseEnvFile', () => {
  const parse = (text: string) => parseEnvFile(text, '/srv/relay/.env');
  /** The error's message, which must name the line and show none of it. */
  const refusal = (text: string): string => {
    try {
      parse(text);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('not refused');
  };

  it("reads dotenv's grammar: quotes, escapes in double quotes, export, trailing comments, CRLF, spaces around =", () => {
    const text = [
      '# comment',
      '   # indented comment',
      '',
      '   ',
      'A=plain value',
      'B="double # not a comment\\nnext"',
      "C='single \\n kept'",
      'D=`back tick`',
      'export E=exported',
      'F=value # a comment',
      'G = spaced',
      'H=',
      'I=a=b=c',
      'J=postgres://u:p@h:5432/db?x=1',
    ].join('\r\n');
    expect(parse(text)).toEqual({
      A: 'plain value',
      B: 'double # not a comment\nnext',
      C: 'single \\n kept',
      D: 'back tick',
      E: 'exported',
      F: 'value',
      G: 'spaced',
      H: '',
      I: 'a=b=c',
      J: 'postgres://u:p@h:5432/db?x=1',
    });
  });

  it.each([
    ['a name and a value without =', 'RELAY_JWT_SECRET s3cr3t-value-0123456789'],
    ['a name alone', 's3cr3t-value-0123456789'],
    ["dotenv's colon form", 'RELAY_JWT_SECRET: s3cr3t-value-0123456789'],
    ['a name that is not a variable name', 'RELAY.JWT-SECRET=s3cr3t-value-0123456789'],
    ['a name starting with a digit', '1RELAY=s3cr3t-value-0123456789'],
    ['a quoted value left open', 'RELAY_JWT_SECRET="s3cr3t-value-0123456789'],
  ])('refuses %s, naming the line number and never its text', (_case, line) => {
    const message = refusal(`PORT=4100\n\n${line}\nLOG_LEVEL=debug\n`);
    expect(message).toMatch(/^\/srv\/relay\/\.env line 3: /);
    expect(message).toContain('the line is not shown');
    expect(message).not.toContain('s3cr3t');
    expect(message).not.toContain('RELAY_JWT_SECRET');
  });

  it('reads a quoted value over several lines (a PEM), and counts the lines after it', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEv\\Q=\n-----END PRIVATE KEY-----';
    expect(parse(`TEMPORAL_TLS_CLIENT_KEY_DATA="${pem}" # the key\nPORT=4100\n`)).toEqual({ TEMPORAL_TLS_CLIENT_KEY_DATA: pem, PORT: '4100' });
    expect(parse("A='x \\' y\nz'\nB=1")).toEqual({ A: "x \\' y\nz", B: '1' });
    expect(refusal(`A="one\ntwo"\nPORT=4100\nnot a setting\n`)).toMatch(/ line 4: not a setting;/);
  });

  it('refuses a quoted value whose closing quote does not end its line, naming the line it opened on', () => {
    expect(refusal('PORT=4100\nRELAY_JWT_SECRET="s3cr3t\nvalue" and more\nLOG_LEVEL=debug\n')).toMatch(/ line 2: a quoted value that is not closed/);
  });

  it('counts lines the way an editor does (CRLF, CR and LF breaks)', () => {
    expect(refusal('A=1\r\nB=2\rC=3\nbroken\n')).toMatch(/ line 4: /);
  });
});
