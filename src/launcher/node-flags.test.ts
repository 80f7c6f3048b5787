import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_NODE_FLAGS } from './node-flags';

const REPO = path.resolve(__dirname, '..', '..');
const flags = SERVICE_NODE_FLAGS.join(' ');

describe('the service processes start with their young generation at its final size', () => {
  it.each(['start', 'api', 'worker'])('npm run %s passes the flags to node', (script) => {
    const scripts = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts[script]).toBe(`node ${flags} bin/relay.js ${script}`);
  });

  it("the service image's entrypoint passes them to node", () => {
    const dockerfile = fs.readFileSync(path.join(REPO, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`ENTRYPOINT ${JSON.stringify(['node', ...SERVICE_NODE_FLAGS, 'bin/relay.js'])}`.replace(/","/g, '", "'));
  });
});
