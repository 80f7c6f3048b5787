import { SignJWT } from 'jose';
import { authenticate, checkChatA, checkCodehostB, checkHubSignature, checkPaymentsA, checkTrackerAJwt, checkTrackerB } from './auth';
import { hmacHex } from '../common/secret-box';

const secret = 'whsec_current_secret_value';
const old = 'whsec_previous_secret_value';
const raw = Buffer.from('{"hello":"world"}');
const now = 1_800_000_000;

describe('signature checks', () => {
  it('hub: sha256=<hex> of the raw body, with either secret', () => {
    expect(checkHubSignature(raw, `sha256=${hmacHex(secret, raw)}`, [secret])).toEqual({ ok: true });
    expect(checkHubSignature(raw, `sha256=${hmacHex(secret, raw).toUpperCase()}`, [secret])).toEqual({ ok: true });
    expect(checkHubSignature(raw, `sha256=${hmacHex(old, raw)}`, [secret, old])).toEqual({ ok: true });
    expect(checkHubSignature(raw, `sha256=${hmacHex(old, raw)}`, [secret])).toEqual({ ok: false });
    expect(checkHubSignature(raw, hmacHex(secret, raw), [secret])).toEqual({ ok: false });
    expect(checkHubSignature(Buffer.from('{"hello":"World"}'), `sha256=${hmacHex(secret, raw)}`, [secret])).toEqual({ ok: false });
  });

  it('chat_a: v0=<hex> of v0:{ts}:{body}, ts within 5 minutes', () => {
    const sign = (ts: number, s = secret) => `v0=${hmacHex(s, `v0:${ts}:`, raw)}`;
    expect(checkChatA(raw, sign(now), String(now), [secret], now)).toEqual({ ok: true });
    expect(checkChatA(raw, sign(now - 299), String(now - 299), [secret], now)).toEqual({ ok: true });
    expect(checkChatA(raw, sign(now - 301), String(now - 301), [secret], now)).toEqual({ ok: false, expired: true });
    expect(checkChatA(raw, sign(now + 301), String(now + 301), [secret], now)).toEqual({ ok: false, expired: true });
    expect(checkChatA(raw, sign(now), String(now + 1), [secret], now)).toEqual({ ok: false });
    expect(checkChatA(raw, sign(now), undefined, [secret], now)).toEqual({ ok: false });
    expect(checkChatA(raw, sign(now, old), String(now), [secret, old], now)).toEqual({ ok: true });
  });

  it('codehost_b: token equality', () => {
    expect(checkCodehostB(secret, [secret])).toEqual({ ok: true });
    expect(checkCodehostB(`${secret}x`, [secret])).toEqual({ ok: false });
    expect(checkCodehostB(old, [secret, old])).toEqual({ ok: true });
  });

  it('tracker_b: bare hex', () => {
    expect(checkTrackerB(raw, hmacHex(secret, raw), [secret])).toEqual({ ok: true });
    expect(checkTrackerB(raw, `sha256=${hmacHex(secret, raw)}`, [secret])).toEqual({ ok: false });
  });

  it('payments_a: t=…,v1=… with several v1 entries and a 5-minute tolerance', () => {
    const v1 = (t: number, s = secret) => hmacHex(s, `${t}.`, raw);
    expect(checkPaymentsA(raw, `t=${now},v1=${v1(now)}`, [secret], now)).toEqual({ ok: true });
    expect(checkPaymentsA(raw, `t=${now},v1=${'0'.repeat(64)},v1=${v1(now)}`, [secret], now)).toEqual({ ok: true });
    expect(checkPaymentsA(raw, `t=${now - 400},v1=${v1(now - 400)}`, [secret], now)).toEqual({ ok: false, expired: true });
    expect(checkPaymentsA(raw, `t=${now},v0=${v1(now)}`, [secret], now)).toEqual({ ok: false });
    expect(checkPaymentsA(raw, `v1=${v1(now)}`, [secret], now)).toEqual({ ok: false });
    expect(checkPaymentsA(raw, `t=${now},v1=${v1(now, old)}`, [secret, old], now)).toEqual({ ok: true });
  });

  it('tracker_a: HS256 JWT, exp with 60 s leeway', async () => {
    const at = new Date(now * 1000);
    const jwt = (exp: number, s = secret, alg = 'HS256') =>
      new SignJWT({}).setProtectedHeader({ alg }).setExpirationTime(exp).sign(new TextEncoder().encode(s));
    expect(await checkTrackerAJwt(await jwt(now + 60), [secret], at)).toEqual({ ok: true });
    expect(await checkTrackerAJwt(await jwt(now - 30), [secret], at)).toEqual({ ok: true });
    expect(await checkTrackerAJwt(await jwt(now - 61), [secret], at)).toEqual({ ok: false, expired: true });
    expect(await checkTrackerAJwt(await jwt(now + 60, 'another-secret-entirely'), [secret], at)).toEqual({ ok: false });
    expect(await checkTrackerAJwt(await jwt(now + 60, secret, 'HS512'), [secret], at)).toEqual({ ok: false });
    expect(await checkTrackerAJwt(await jwt(now + 60, old), [secret, old], at)).toEqual({ ok: true });
  });
});

describe('authenticate', () => {
  const target = { provider: null, projectId: 'p1', secrets: [secret] };
  const keys = async (key: string) => (key === 'svc_good' ? 'p1' : key === 'svc_other' ? 'p2' : null);
  const at = new Date(now * 1000);

  it('accepts the default signature headers and project API keys', async () => {
    await expect(authenticate(target, { 'x-service-signature': `sha256=${hmacHex(secret, raw)}` }, raw, keys, at)).resolves.toBe('X-Service-Signature');
    await expect(authenticate(target, { authorization: 'Bearer svc_good' }, raw, keys, at)).resolves.toBe('API key');
  });

  it('refuses missing, invalid, foreign-project and expired credentials, naming the scheme', async () => {
    await expect(authenticate(target, {}, raw, keys, at)).rejects.toMatchObject({ status: 401, code: 'missing_authentication', message: expect.stringContaining('X-Hub-Signature-256') });
    await expect(authenticate(target, { 'x-hub-signature-256': 'sha256=00' }, raw, keys, at)).rejects.toMatchObject({ status: 401, code: 'invalid_authentication', message: expect.stringContaining('X-Hub-Signature-256') });
    await expect(authenticate(target, { authorization: 'Bearer svc_other' }, raw, keys, at)).rejects.toMatchObject({ code: 'invalid_authentication', message: expect.stringContaining('API key') });
    const chat = { ...target, provider: 'chat_a' as const };
    const ts = now - 600;
    await expect(
      authenticate(chat, { 'x-chata-signature': `v0=${hmacHex(secret, `v0:${ts}:`, raw)}`, 'x-chata-request-timestamp': String(ts) }, raw, keys, at),
    ).rejects.toMatchObject({ code: 'expired_authentication' });
    await expect(authenticate(chat, {}, raw, keys, at)).rejects.toMatchObject({ message: expect.stringContaining('X-ChatA-Signature') });
  });

  it('ignores provider headers on endpoints not bound to that provider', async () => {
    await expect(authenticate(target, { 'x-codehostb-token': secret }, raw, keys, at)).rejects.toMatchObject({ code: 'missing_authentication' });
  });
});
