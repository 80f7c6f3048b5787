import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The `helm` binary: HELM_PATH, then PATH, then where `go install helm.sh/helm/v3/cmd/helm@…` puts it
 * ($(go env GOPATH)/bin, ~/go/bin), as bash .ci/run does. Undefined when there is none.
 */
export function findHelm(): string | undefined {
  const candidates = [process.env.HELM_PATH, 'helm'];
  try {
    candidates.push(path.join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim().split(':')[0], 'bin', 'helm'));
  } catch {
    // No Go here: the other places only.
  }
  candidates.push(path.join(os.homedir(), 'go', 'bin', 'helm'));
  return candidates.find((c) => c && (c === 'helm' ? spawnSync('helm', ['version'], { encoding: 'utf8' }).status === 0 : fs.existsSync(c)));
}
