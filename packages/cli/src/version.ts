import fs from 'node:fs';
import path from 'node:path';

/**
 * The version in the nearest package.json above this file: the service's in a checkout or its
 * compiled dist/, the CLI package's once bundled into packages/cli (docs/cli.md).
 */
export function relayVersion(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      if (path.dirname(dir) === dir) return 'unknown';
    }
  }
}
