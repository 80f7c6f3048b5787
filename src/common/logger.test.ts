import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { withoutBoundValues } from './logger';

describe('withoutBoundValues', () => {
  it('replaces the literals of the statement, keeps identifiers and the reason', () => {
    const message = `insert into "users" ("id", "email", "n2") values ('a1', 'o''brien@x.test', 42, -1.5, E'\\\\x00') - value too long for type character varying(100)`;
    expect(withoutBoundValues(message)).toBe('insert into "users" ("id", "email", "n2") values (?, ?, ?, ?, ?) - value too long for type character varying(100)');
  });

  it('handles multi-line statements and reasons that quote a literal', () => {
    expect(withoutBoundValues(`select *\n  from t where x = 'secret'\n limit 5 - invalid input syntax near 'secret'`)).toBe(
      'select *\n  from t where x = ?\n limit ? - invalid input syntax near ?',
    );
  });
});

describe('createLogger', () => {
  // A child that logs one line, run through @swc-node/register like bin/relay.js does.
  const program = `process.env.SWC_NODE_PROJECT='tsconfig.runtime.json'; require('@swc-node/register'); require('./src/common/logger').createLogger('info').info({ port: 3000 }, 'API listening')`;
  const run = (command: string, env: NodeJS.ProcessEnv = {}) =>
    execFileSync('/bin/sh', ['-c', command], { cwd: path.resolve(__dirname, '..', '..'), encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', LOG_FORMAT: '', ...env } });
  const node = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(program)}`;

  it('writes readable lines when stdout is a terminal', () => {
    // script(1) gives the child a pseudo-terminal.
    const out = run(`script -qec ${JSON.stringify(node)} /dev/null`);
    expect(out).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO: API listening \{"port":3000\}\r?\n$/);
  });

  it('writes JSON lines otherwise, and LOG_FORMAT chooses either way', () => {
    expect(JSON.parse(run(node))).toMatchObject({ level: 30, msg: 'API listening', port: 3000 });
    expect(run(node, { LOG_FORMAT: 'pretty' })).toMatch(/INFO: API listening \{"port":3000\}/);
    expect(JSON.parse(run(`script -qec ${JSON.stringify(node)} /dev/null`, { LOG_FORMAT: 'json' }))).toMatchObject({ msg: 'API listening' });
  });
});
