import { randomBytes } from 'node:crypto';
import { constantTimeEqual, hashToken, SecretBox } from './secret-box';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('SecretBox', () => {
  it('round-trips and never stores the plaintext', () => {
    const box = new SecretBox([key('k1')]);
    const sealed = box.seal('https://hooks.example.test/secret-path');
    expect(sealed).not.toContain('secret-path');
    expect(sealed.startsWith('v1.k1.')).toBe(true);
    expect(box.open(sealed)).toBe('https://hooks.example.test/secret-path');
  });

  it('uses a fresh IV each time', () => {
    const box = new SecretBox([key('k1')]);
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('decrypts with an older key after rotation and reports the need to reseal', () => {
    const oldKey = key('old');
    const sealed = new SecretBox([oldKey]).seal('token');
    const rotated = new SecretBox([key('new'), oldKey]);
    expect(rotated.open(sealed)).toBe('token');
    expect(rotated.needsReseal(sealed)).toBe(true);
    expect(rotated.needsReseal(rotated.seal('token'))).toBe(false);
  });

  it('refuses tampered ciphertext and unknown keys', () => {
    const box = new SecretBox([key('k1')]);
    const parts = box.seal('token').split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox([key('other')]).open(box.seal('token'))).toThrow(/key id "k1"/);
  });
});

describe('token helpers', () => {
  it('hashes deterministically and compares in constant time', () => {
    expect(hashToken('svc_abc')).toBe(hashToken('svc_abc'));
    expect(hashToken('svc_abc')).toHaveLength(64);
    expect(constantTimeEqual('a', 'a')).toBe(true);
    expect(constantTimeEqual('a', 'ab')).toBe(false);
    expect(constantTimeEqual('ab', 'ac')).toBe(false);
  });
});
