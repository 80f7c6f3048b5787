import { signOutbound } from './signature';

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
