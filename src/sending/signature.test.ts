import { isStandardSecret, signOutbound, signStandard, standardKey } from './signature';

describe('signOutbound', () => {
  // Vectors computed independently: printf '%s' '<ts>.<body>' | openssl dgst -sha256 -hmac <secret>
  it.each([
    ['whsec_test', 1700000000, '{"hello":"world"}', 'sha256=f592bbf3951cfc94e560eecfb5d9dd4da6b0fff2e626235f8ab4b54860925d0b'],
    ['key', 0, '', 'sha256=85841b4efc3cd7776c3c8f9b7cca9e281c550e5d19889d78e9e669c6337f000d'],
  ])('secret %s, ts %d', (secret, ts, body, expected) => {
    expect(signOutbound(secret, ts, body)).toBe(expected);
    expect(signOutbound(secret, ts, Buffer.from(body))).toBe(expected);
  });

  it('depends on the timestamp, the body and the secret', () => {
    const base = signOutbound('s', 1, '{}');
    expect(signOutbound('s', 2, '{}')).not.toBe(base);
    expect(signOutbound('s', 1, '{ }')).not.toBe(base);
    expect(signOutbound('t', 1, '{}')).not.toBe(base);
  });
});

describe('signStandard (Standard Webhooks)', () => {
  // The example of the Standard Webhooks specification (and of its libraries' own tests).
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const body = '{"test": 2432232314}';

  it('matches the specification’s example signature', () => {
    expect(signStandard(standardKey(secret), id, 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(signStandard(standardKey(secret), id, 1614265330, Buffer.from(body))).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('depends on the id, the timestamp, the body and the key', () => {
    const key = standardKey(secret);
    const base = signStandard(key, id, 1, '{}');
    expect(signStandard(key, 'msg_other', 1, '{}')).not.toBe(base);
    expect(signStandard(key, id, 2, '{}')).not.toBe(base);
    expect(signStandard(key, id, 1, '{ }')).not.toBe(base);
    expect(signStandard(standardKey('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), id, 1, '{}')).not.toBe(base);
  });
});

describe('isStandardSecret', () => {
  const bytes = (n: number) => `whsec_${Buffer.alloc(n, 7).toString('base64')}`;
  it.each([
    [bytes(24), true],
    [bytes(32), true],
    [bytes(64), true],
    [bytes(25), true],
    [bytes(26), true],
    [bytes(23), false],
    [bytes(65), false],
    [Buffer.alloc(32, 7).toString('base64'), false], // no prefix
    [`whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`, false], // URL-safe alphabet
    [`whsec_${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`, false], // unpadded
    ['whsec_ MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', false],
    ['whsec_', false],
  ])('%s → %s', (secret, ok) => {
    expect(isStandardSecret(secret)).toBe(ok);
  });
});
