import { metricsTokenAccepted, publicMetricsAccess } from './metrics-access';

describe('publicMetricsAccess', () => {
  it('is off in production, open elsewhere, and token-guarded wherever a token is set', () => {
    expect(publicMetricsAccess({ NODE_ENV: 'production', RELAY_METRICS_TOKEN: undefined })).toBe('off');
    expect(publicMetricsAccess({ NODE_ENV: 'development', RELAY_METRICS_TOKEN: undefined })).toBe('open');
    expect(publicMetricsAccess({ NODE_ENV: 'production', RELAY_METRICS_TOKEN: 't'.repeat(16) })).toBe('token');
    expect(publicMetricsAccess({ NODE_ENV: 'development', RELAY_METRICS_TOKEN: 't'.repeat(16) })).toBe('token');
  });
});

describe('metricsTokenAccepted', () => {
  const token = 'secret-metrics-token';
  it('accepts the bearer token only', () => {
    expect(metricsTokenAccepted(`Bearer ${token}`, token)).toBe(true);
    expect(metricsTokenAccepted(`bearer  ${token}`, token)).toBe(true);
    expect(metricsTokenAccepted(undefined, token)).toBe(false);
    expect(metricsTokenAccepted(token, token)).toBe(false);
    expect(metricsTokenAccepted(`Bearer ${token}x`, token)).toBe(false);
    expect(metricsTokenAccepted('Bearer ', token)).toBe(false);
    expect(metricsTokenAccepted(`Basic ${token}`, token)).toBe(false);
  });
  it('accepts anything when no token is set', () => {
    expect(metricsTokenAccepted(undefined, undefined)).toBe(true);
  });
});
