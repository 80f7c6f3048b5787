export { Table, workflowColumn, type Column } from './table';
export { EmptyState, ErrorMessage, Field, FieldError } from './feedback';
export { ConfirmButton, CopyButton } from './buttons';
export { SecretOnce } from './secret-once';
export { AttemptBadge, countOf, DeliveryBadge, JsonView, KeyValues, OutcomeBadge, Page, ResponseFrom, ShortId, StatusBadge, Time, WorkflowLink } from './display';
export { Pager, useCursorPager } from './pager';
export { Can } from './can';
export { LiveIndicator } from './live-indicator';
export { HEALTH_FIELDS, HealthBadge, HealthCard, p95, successRate, type Health } from './health';
export {
  BuilderFrame,
  ConditionsBuilder,
  RulesBuilder,
  conditionsProblem,
  fitsConditions,
  fitsRoutingRules,
  fitsTypingRules,
  rulesProblem,
  useBuilder,
  type Condition,
  type RoutingRule,
  type TypingRule,
} from './rule-builders';
