import type { ReactNode } from 'react';
import type { CombinedError } from '@urql/core';
import { errorCode, errorMessage, fieldProblems } from '../lib/graphql';

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

/** The whole error of a query or mutation, unless it is only about fields shown next to them. */
export function ErrorMessage({ error, fields = [] }: { error?: CombinedError; fields?: string[] }) {
  if (!error) return null;
  const problems = fieldProblems(error);
  if (problems.length > 0 && problems.every((p) => fields.some((f) => matchesField(p.field, f)))) return null;
  return (
    <div className="error" role="alert">
      {errorMessage(error)}
      {errorCode(error) && <span className="muted"> ({errorCode(error)})</span>}
    </div>
  );
}

/** `eventTypePath` matches the API's `event_type_path`; nested paths (`retry_policy.max_attempts`) match their prefix. */
function matchesField(apiField: string, field: string): boolean {
  const snake = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return apiField === snake || apiField === field || apiField.startsWith(`${snake}.`);
}

/** The API's message for one input field (from `details.fields` of an `invalid_input` error). */
export function FieldError({ error, field }: { error?: CombinedError; field: string }) {
  const problem = fieldProblems(error).find((p) => matchesField(p.field, field));
  if (!problem) return null;
  return <div className="field-error">{problem.message}</div>;
}

/** A labelled form field with its error underneath. */
export function Field(props: { label: string; field: string; error?: CombinedError; hint?: ReactNode; children: ReactNode }) {
  return (
    <label className="field">
      <span className="field-label">{props.label}</span>
      {props.children}
      {props.hint && <span className="hint">{props.hint}</span>}
      <FieldError error={props.error} field={props.field} />
    </label>
  );
}
