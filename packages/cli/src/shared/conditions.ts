/** Filter conditions: the server's filters and `relay listen --filter` speak the same language. */
export const FILTER_OPERATORS = ['eq', 'neq', 'contains', 'not_contains', 'exists', 'not_exists', 'regex'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** `field` is `header.<Name>` or `body.<dot.path>` (array indexes allowed: `body.items.0.id`). */
export interface Condition {
  field: string;
  operator: FilterOperator;
  value?: string;
}
