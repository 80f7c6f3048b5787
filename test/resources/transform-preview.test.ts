import { createEndpoint, insertEvent } from '../support/factories';
import { type ResourceEnv, startResourceEnv } from './resource-harness';

/** POST /v1/transforms/preview and previewTransform: the transform editor's "run against a stored event". */
describe('transform preview', () => {
  let env: ResourceEnv;
  let eventId: string;

  beforeAll(async () => {
    env = await startResourceEnv();
    const { endpoint } = await createEndpoint(env.api.container, env.em(), env.owner.project);
    eventId = await insertEvent(env.api.container, endpoint, { payload: { issue: { number: 7, title: 'Crash' }, labels: ['bug', 'p1'] } });
  });
  afterAll(() => env.close());

  const preview = (body: unknown, opts = {}) => env.call('POST', '/v1/transforms/preview', { body, ...opts });

  it('runs an unsaved expression against a stored event or a sample payload', async () => {
    const stored = await preview({ expression: '{ "n": issue.number, "tags": $join(labels, ",") }', event_id: eventId });
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual({ result: { n: 7, tags: 'bug,p1' }, error: null });
    const sample = await preview({ expression: '$sum(items.price)', payload: { items: [{ price: 2 }, { price: 3.5 }] } });
    expect(sample.body).toEqual({ result: 5.5, error: null });
    // A viewer reads: previewing changes nothing.
    expect((await preview({ expression: '$', payload: { a: 1 } }, { token: env.tokens.viewer })).body.result).toEqual({ a: 1 });
  });

  it('answers the expression’s failure with its code and character position, not a 400', async () => {
    const syntax = await preview({ expression: '{ "a": (1 + }', payload: {} });
    expect(syntax.status).toBe(200);
    expect(syntax.body).toEqual({ result: null, error: { code: 'transform_failed', message: expect.stringMatching(/Syntax error/), position: expect.any(Number) } });
    const runtime = await preview({ expression: '$number(issue.title)', event_id: eventId });
    expect(runtime.body.error).toMatchObject({ code: 'transform_failed', position: expect.any(Number) });
    const empty = await preview({ expression: 'nothing.here', event_id: eventId });
    expect(empty.body).toEqual({ result: null, error: { code: 'transform_empty', message: expect.stringMatching(/no value/) } });
  });

  it('refuses bad input with the field; another organization’s event is 404', async () => {
    const neither = await preview({ expression: '$' });
    expect(neither.status).toBe(400);
    expect(neither.body.error.details.fields[0].field).toBe('payload');
    expect((await preview({ expression: '$', payload: {}, event_id: eventId })).status).toBe(400);
    expect((await preview({ payload: {} })).body.error.details.fields[0].field).toBe('expression');
    expect((await preview({ expression: '$', event_id: 'nope' })).body.error.details.fields[0].field).toBe('event_id');
    const stranger = await preview({ expression: '$', event_id: eventId }, { token: env.tokens.stranger, projectId: env.stranger.project.id });
    expect(stranger.status).toBe(404);
    expect((await preview({ expression: '$', payload: {} }, { token: '' })).status).toBe(401);
  });

  it('is offered over GraphQL as previewTransform', async () => {
    const q = 'query($i: TransformPreviewInput!) { previewTransform(input: $i) { result error { code message position } } }';
    const ok = await env.query(q, { i: { expression: 'issue.title', eventId } });
    expect(ok.errors).toBeUndefined();
    expect(ok.data.previewTransform).toEqual({ result: 'Crash', error: null });
    const bad = await env.query(q, { i: { expression: '(', payload: {} } });
    expect(bad.data.previewTransform.error).toMatchObject({ code: 'transform_failed', position: expect.any(Number) });
    const neither = await env.query(q, { i: { expression: '$' } });
    expect(neither.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400 });
  });
});
