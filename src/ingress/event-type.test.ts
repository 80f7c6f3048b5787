import type { TypingRule } from '../common/types';
import { applyTypingRule, extractEventType, type TypingConfig } from './event-type';

const base: TypingConfig = { provider: null, eventTypeHeader: null, eventTypePath: null, typingRules: [] };
const input = (headers: Record<string, string>, body: unknown) => ({ headers, body });

describe('extractEventType', () => {
  it('follows the priority order: provider, configured header, path, X-Event-Type, typing rules', () => {
    const rule: TypingRule = { name: 'r', logic: 'AND', conditions: [], parts: [{ literal: 'rule' }] };
    const config: TypingConfig = { ...base, eventTypeHeader: 'X-Kind', eventTypePath: 'meta.kind', typingRules: [rule] };
    const all = { 'x-codehosta-event': 'push', 'x-kind': 'from-header', 'x-event-type': 'generic' };
    const body = { meta: { kind: 'from-path' } };
    expect(extractEventType(config, input(all, body))).toBe('push');
    expect(extractEventType(config, input({ 'x-kind': 'from-header', 'x-event-type': 'generic' }, body))).toBe('from-header');
    expect(extractEventType(config, input({ 'x-event-type': 'generic' }, body))).toBe('from-path');
    expect(extractEventType(config, input({ 'x-event-type': 'generic' }, {}))).toBe('generic');
    expect(extractEventType(config, input({}, {}))).toBe('rule');
    expect(extractEventType(base, input({}, {}))).toBe('');
  });

  it('reads provider payload fields only on endpoints bound to that provider', () => {
    expect(extractEventType({ ...base, provider: 'payments_a' }, input({}, { type: 'charge.succeeded' }))).toBe('charge.succeeded');
    expect(extractEventType(base, input({}, { type: 'charge.succeeded' }))).toBe('');
    expect(extractEventType({ ...base, provider: 'chat_a' }, input({}, { type: 'event_callback', event: { type: 'message' } }))).toBe('message');
    expect(extractEventType(base, input({ 'trackerb-event': 'Issue' }, {}))).toBe('Issue');
    expect(extractEventType(base, input({ 'x-codehostb-event': 'Push Hook' }, {}))).toBe('Push Hook');
  });

  it('honours array indexes in event_type_path and ignores non-scalar values', () => {
    expect(extractEventType({ ...base, eventTypePath: 'items.1.kind' }, input({}, { items: [{}, { kind: 'b' }] }))).toBe('b');
    expect(extractEventType({ ...base, eventTypePath: 'items' }, input({}, { items: [1] }))).toBe('');
  });
});

describe('typing rules', () => {
  const rule: TypingRule = {
    name: 'issues',
    logic: 'AND',
    conditions: [{ field: 'body.object', operator: 'eq', value: 'issue' }],
    parts: [{ literal: 'issue' }, { path: 'body.action' }, { path: 'body.missing' }, { path: 'header.X-Env' }],
  };
  it('joins literal and path parts, skipping empty ones, when the conditions hold', () => {
    expect(applyTypingRule(rule, input({ 'x-env': 'prod' }, { object: 'issue', action: 'closed' }))).toBe('issue.closed.prod');
    expect(applyTypingRule({ ...rule, separator: ':' }, input({}, { object: 'issue', action: 'closed' }))).toBe('issue:closed');
    expect(applyTypingRule(rule, input({}, { object: 'pr', action: 'closed' }))).toBeUndefined();
  });
  it('a rule that yields nothing does not match; the next one is tried; only the first 10 count', () => {
    const empty: TypingRule = { name: 'e', logic: 'AND', conditions: [], parts: [{ path: 'body.none' }] };
    const second: TypingRule = { name: 's', logic: 'OR', conditions: [], parts: [{ literal: 'second' }] };
    expect(extractEventType({ ...base, typingRules: [empty, second] }, input({}, {}))).toBe('second');
    expect(extractEventType({ ...base, typingRules: [...Array(10).fill(empty), second] }, input({}, {}))).toBe('');
  });
});
