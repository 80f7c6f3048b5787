/** Domain vocabulary shared by entities, services, workflows and the wire formats. */

export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PLANS = ['free', 'team', 'growth'] as const;
export type Plan = (typeof PLANS)[number];

export const DESTINATION_TYPES = ['chat_b', 'chat_a', 'chat_c', 'webhook', 'cli'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** Providers an endpoint (source) can be bound to. */
export const ENDPOINT_PROVIDERS = ['codehost_a', 'codehost_b', 'codehost_c', 'chat_a', 'tracker_a', 'tracker_b', 'payments_a'] as const;
export type EndpointProvider = (typeof ENDPOINT_PROVIDERS)[number];

/** A source's schema alerts (docs/schemas.md): none; removed or retyped paths and new event types; those and added paths. */
export const SCHEMA_ALERTS = ['off', 'changes', 'all'] as const;
export type SchemaAlerts = (typeof SCHEMA_ALERTS)[number];

/** A source's silence alerts (docs/schemas.md): none; after its learned expectation; after its `expected_interval_seconds`. */
export const SILENCE_ALERTS = ['off', 'learned', 'expected_interval'] as const;
export type SilenceAlerts = (typeof SILENCE_ALERTS)[number];

/** Providers an OAuth connection can be made with. */
export const OAUTH_PROVIDERS = [...ENDPOINT_PROVIDERS, 'chat_b'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

export { FILTER_OPERATORS, type FilterOperator, type Condition } from '../../packages/cli/src/shared/conditions';
import type { Condition } from '../../packages/cli/src/shared/conditions';

export const LOGICS = ['AND', 'OR'] as const;
export type Logic = (typeof LOGICS)[number];

export const EVENT_STATUSES = ['received', 'filtered'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** `skipped`: a `cli` delivery whose CLI was not connected or was paused (not a failure: docs/cli.md). */
export const DELIVERY_STATUSES = ['queued', 'retrying', 'success', 'failed', 'canceled', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/**
 * An attempt is one of the delivery statuses, or `rate_limited`: the receiver's answer (a 429, a 503 with
 * Retry-After, a bot token's global cooldown) was waited out without counting towards max_attempts
 * (docs/receiver-signals.md).
 */
export const ATTEMPT_STATUSES = [...DELIVERY_STATUSES, 'rate_limited'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/** docs/ingress.md#event-types. */
export interface TypingRule {
  name: string;
  logic: Logic;
  conditions: Condition[];
  parts: Array<{ literal: string } | { path: string }>;
  separator?: string;
}

/** docs/templates.md#routing-rules. */
export interface RoutingRule {
  name: string;
  logic: Logic;
  conditions: Condition[];
  template_id?: string | null;
  transform_id?: string | null;
}

export interface RetryPolicy {
  /** Total attempts including the first. */
  max_attempts: number;
  /** Delays in seconds between attempts; the last value repeats when attempts outnumber it. */
  backoff: number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  max_attempts: 7,
  backoff: [1, 5, 30, 120, 900, 3600, 21600],
};

export const DEFAULT_HEADER_PREFIX = 'Service';
