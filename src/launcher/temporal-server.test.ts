import { renderTemplate } from './temporal-server';

describe('renderTemplate (the Temporal server config)', () => {
  it('fills every placeholder, repeated ones included', () => {
    expect(renderTemplate('grpcPort: {{port}}\nrpcAddress: "127.0.0.1:{{port}}"\nshards: {{shards}}', { port: 7233, shards: 4 })).toBe(
      'grpcPort: 7233\nrpcAddress: "127.0.0.1:7233"\nshards: 4',
    );
  });

  it('refuses a placeholder it has no value for, naming it', () => {
    expect(() => renderTemplate('user: {{pgUser}}', {})).toThrow('no value for {{pgUser}}');
  });
});
