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
