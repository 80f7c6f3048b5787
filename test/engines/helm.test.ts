import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { findHelm } from '../support/helm';

const REPO = path.resolve(__dirname, '..', '..');
const CHART = path.join(REPO, 'deploy', 'helm', 'relay');
const PRODUCTION = path.join(CHART, 'values-production.yaml');
const helm = findHelm();
if (!helm) process.stderr.write('test/engines/helm.test.ts: skipped, helm is not installed (bash .ci/run builds it: go install helm.sh/helm/v3/cmd/helm@v3.22.0)\n');

interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: any;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

function run(args: string[]) {
  return spawnSync(helm!, args, { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: path.join(REPO, '.relay', 'helm-cache') } });
}

function render(...values: string[]): Manifest[] {
  const out = run(['template', 'relay', CHART, ...values]);
  if (out.status !== 0) throw new Error(`helm template ${values.join(' ')}: ${out.stderr}`);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as Manifest).filter(Boolean);
}

const one = (docs: Manifest[], kind: string, name: string) => {
  const found = docs.filter((d) => d.kind === kind && d.metadata.name === name);
  expect([kind, name, found.length]).toEqual([kind, name, 1]);
  return found[0];
};
const podSpec = (m: Manifest) => m.spec.template.spec;
const container = (m: Manifest) => podSpec(m).containers[0];
const env = (m: Manifest): Record<string, EnvVar> => Object.fromEntries((container(m).env as EnvVar[]).map((e) => [e.name, e]));

/**
 * Issue 35.3: the Helm chart (deploy/helm/relay) lints, renders with its default values and with the production
 * example, and what it renders holds the facts a deployment depends on. (What the pods do is the image's, tested by
 * test/engines/image.test.ts; no Kubernetes cluster runs here.)
 */
(helm ? describe : describe.skip)('the Helm chart', () => {
  it('passes helm lint with its default values and with values-production.yaml', () => {
    for (const args of [[CHART], [CHART, '-f', PRODUCTION]]) {
      const out = run(['lint', '--strict', ...args]);
      expect([args, out.stdout.match(/(\d+) chart\(s\) failed/)?.[1], out.status]).toEqual([args, '0', 0]);
    }
  });

  it('renders the API, the worker, their Services, disruption budgets, the Ingress and relay migrate as a hook', () => {
    for (const values of [[], ['-f', PRODUCTION]]) {
      const docs = render(...values);
      const kinds = docs.map((d) => `${d.kind}/${d.metadata.name}`).sort();
      expect(kinds).toEqual(
        ['Deployment/relay-api', 'Deployment/relay-worker', 'Ingress/relay', 'Job/relay-migrate', 'PodDisruptionBudget/relay-api', 'PodDisruptionBudget/relay-worker', 'Service/relay-api', 'Service/relay-metrics', 'ServiceAccount/relay'].sort(),
      );
      // Nothing secret is written into a manifest: no Secret, every secret a reference to the existing one.
      expect(docs.some((d) => d.kind === 'Secret')).toBe(false);
      const job = one(docs, 'Job', 'relay-migrate');
      expect(job.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded' });
      expect(container(job).args).toEqual(['migrate']);
      expect(podSpec(job).restartPolicy).toBe('Never');
      for (const workload of [one(docs, 'Deployment', 'relay-api'), one(docs, 'Deployment', 'relay-worker'), job]) {
        const vars = env(workload);
        for (const key of ['RELAY_ENCRYPTION_KEYS', 'RELAY_JWT_SECRET', 'DATABASE_URL']) {
          expect([workload.metadata.name, key, vars[key].value, vars[key].valueFrom?.secretKeyRef]).toEqual([workload.metadata.name, key, undefined, { name: 'relay', key }]);
        }
        expect(vars.NODE_ENV.value).toBe('production');
        expect(vars.PUBLIC_BASE_URL.value).toBe('https://relay.example.com');
        // Non-root on a read-only root filesystem, with a writable /tmp.
        expect(podSpec(workload).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
        expect(container(workload).securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
        expect(container(workload).volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(podSpec(workload).automountServiceAccountToken).toBe(false);
      }
    }
  });

  it('probes /healthz for liveness and /readyz for readiness: the API on its port, the worker on its metrics port', () => {
    const docs = render();
    const api = container(one(docs, 'Deployment', 'relay-api'));
    const worker = container(one(docs, 'Deployment', 'relay-worker'));
    expect(api.args).toEqual(['api']);
    expect(api.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(api.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(api.ports).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'http', containerPort: 3000 }), expect.objectContaining({ name: 'metrics', containerPort: 9464 })]));
    expect(worker.args).toEqual(['worker']);
    expect(worker.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(worker.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(env(one(docs, 'Deployment', 'relay-worker')).RELAY_WORKER_METRICS_PORT.value).toBe('9464');
    // A stop outlasts the API's drain and a worker's attempt in flight (RELAY_DELIVERY_TIMEOUT_MS, 30 s).
    const drainMs = Number(env(one(docs, 'Deployment', 'relay-api')).RELAY_DRAIN_DELAY_MS.value);
    expect(podSpec(one(docs, 'Deployment', 'relay-api')).terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainMs);
    expect(podSpec(one(docs, 'Deployment', 'relay-worker')).terminationGracePeriodSeconds * 1000).toBeGreaterThan(30_000);
  });

  it('routes the Ingress (with TLS) to the API port only; metrics stay on the in-cluster metrics Service', () => {
    const docs = render('-f', PRODUCTION);
    const ingress = one(docs, 'Ingress', 'relay');
    expect(ingress.spec.tls).toEqual([{ hosts: ['relay.example.com'], secretName: 'relay-tls' }]);
    const backends = ingress.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.backend.service));
    expect(backends).toEqual([{ name: 'relay-api', port: { name: 'http' } }]);
    expect(one(docs, 'Service', 'relay-api').spec.ports).toEqual([expect.objectContaining({ name: 'http', targetPort: 'http' })]);
    const metrics = one(docs, 'Service', 'relay-metrics');
    expect([metrics.spec.type, metrics.spec.clusterIP, metrics.spec.ports[0].targetPort]).toEqual(['ClusterIP', 'None', 'metrics']);
  });

  it('uses an external PostgreSQL over verified TLS and an external Temporal over mutual TLS, certificates from Secrets', () => {
    const docs = render('-f', PRODUCTION);
    for (const workload of [one(docs, 'Deployment', 'relay-api'), one(docs, 'Deployment', 'relay-worker'), one(docs, 'Job', 'relay-migrate')]) {
      const vars = env(workload);
      const mounts = container(workload).volumeMounts as Array<{ name: string; mountPath: string }>;
      const volumes = podSpec(workload).volumes as Array<{ name: string; secret?: { secretName: string } }>;
      const fromSecret = (file: string) => {
        const mount = mounts.find((m) => file.startsWith(`${m.mountPath}/`));
        return volumes.find((v) => v.name === mount?.name)?.secret?.secretName;
      };
      expect(vars.DATABASE_SSL_MODE.value).toBe('verify-full');
      expect(fromSecret(vars.DATABASE_SSL_CA.value!)).toBe('relay-database-ca');
      expect(vars.TEMPORAL_ADDRESS.value).toBe('temporal-frontend.temporal.svc:7233');
      expect(vars.TEMPORAL_TLS.value).toBe('true');
      expect(fromSecret(vars.TEMPORAL_TLS_SERVER_CA_CERT_PATH.value!)).toBe('relay-temporal-ca');
      expect(fromSecret(vars.TEMPORAL_TLS_CLIENT_CERT_PATH.value!)).toBe('relay-temporal-client');
      expect(fromSecret(vars.TEMPORAL_TLS_CLIENT_KEY_PATH.value!)).toBe('relay-temporal-client');
      expect(container(workload).image).toBe('registry.example.com/webhook-relay:0.2.0');
    }
    // Temporal Cloud's API key: from the Secret too.
    const cloud = env(one(render('--set', 'temporal.apiKey.enabled=true', '--set', 'temporal.address=eu.aws.api.temporal.io:7233'), 'Deployment', 'relay-worker'));
    expect(cloud.TEMPORAL_API_KEY.valueFrom?.secretKeyRef).toEqual({ name: 'relay', key: 'TEMPORAL_API_KEY' });
    expect(cloud.TEMPORAL_TLS.value).toBe('true');
  });

  it('runs the version of the release by default, and refuses to render without a Temporal address', () => {
    const version = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    expect(fs.readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')).toMatch(new RegExp(`^appVersion: "${version.replaceAll('.', '\\.')}"$`, 'm'));
    expect(container(one(render(), 'Deployment', 'relay-api')).image).toBe(`webhook-relay:${version}`);
    const out = run(['template', 'relay', CHART, '--set', 'temporal.address=']);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/temporal\.address/);
  });
});
