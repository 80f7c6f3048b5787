import { useState, type ReactNode } from 'react';
import { parseJsonText, pretty } from '../lib/json-input';

/**
 * Form builders for conditions (filter groups), typing rules and routing rules, each with a
 * **JSON** toggle showing the same data as text. The JSON view is also the fallback for shapes the
 * builder cannot show: switching back is refused, with the reason, until the text fits. The
 * checks here mirror the API's (src/filters/condition.schema.ts), which stays the authority.
 */

export interface Condition {
  field: string;
  operator: string;
  value: string;
}
type Part = { literal: string } | { path: string };
export interface TypingRule {
  name: string;
  logic: string;
  conditions: Condition[];
  parts: Part[];
  separator?: string;
}
export interface RoutingRule {
  name: string;
  logic: string;
  conditions: Condition[];
  template_id?: string | null;
  transform_id?: string | null;
}

/** The seven filter operators (docs/ingress.md "Filters"). */
export const OPERATORS = ['eq', 'neq', 'contains', 'not_contains', 'exists', 'not_exists', 'regex'] as const;
const NO_VALUE = new Set(['exists', 'not_exists']);
const FIELD_REF = /^(?:header\.[\s\S]+|body\.[^.]+(?:\.[^.]+)*)$/;

/** Why a condition cannot be saved, in the API's words, or undefined. */
export function conditionProblem(c: Condition): string | undefined {
  if (!FIELD_REF.test(c.field)) return 'field must be "header.<Name>" or "body.<dot.path>"';
  if (c.operator === 'regex') {
    try {
      new RegExp(c.value, 'u');
    } catch (err) {
      return `invalid regular expression: ${(err as Error).message}`;
    }
  }
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const onlyKeys = (v: Record<string, unknown>, keys: string[]) => Object.keys(v).every((k) => keys.includes(k));
const isString = (v: unknown): v is string => typeof v === 'string';

export function fitsConditions(v: unknown): v is Condition[] {
  return Array.isArray(v) && v.every((c) => isObject(c) && onlyKeys(c, ['field', 'operator', 'value']) && isString(c.field) && OPERATORS.includes(c.operator as never) && (c.value === undefined || isString(c.value)));
}
const fitsRuleBase = (r: unknown, extra: string[]): r is Record<string, unknown> =>
  isObject(r) && onlyKeys(r, ['name', 'logic', 'conditions', ...extra]) && isString(r.name) && (r.logic === 'AND' || r.logic === 'OR') && fitsConditions(r.conditions);
export const fitsTypingRules = (v: unknown): v is TypingRule[] =>
  Array.isArray(v) &&
  v.every(
    (r) =>
      fitsRuleBase(r, ['parts', 'separator']) &&
      Array.isArray(r.parts) &&
      r.parts.every((p) => isObject(p) && Object.keys(p).length === 1 && (isString(p.literal) || isString(p.path))) &&
      (r.separator === undefined || isString(r.separator)),
  );
export const fitsRoutingRules = (v: unknown): v is RoutingRule[] =>
  Array.isArray(v) && v.every((r) => fitsRuleBase(r, ['template_id', 'transform_id']) && [r.template_id, r.transform_id].every((id) => id == null || isString(id)));

/** The first problem the builder would show inline, for refusing a save. */
function firstProblem(conditions: Condition[]): string | undefined {
  return conditions.map(conditionProblem).find(Boolean);
}
export const rulesProblem = (rules: { name: string; conditions: Condition[] }[]) =>
  rules.map((r, i) => (!r.name.trim() ? `rule ${i + 1} needs a name` : firstProblem(r.conditions))).find(Boolean);
export const conditionsProblem = firstProblem;

export interface BuilderState<T> {
  mode: 'builder' | 'json';
  value: T;
  text: string;
  /** Why the current text or value cannot be saved (shown inline). */
  error?: string;
}

/**
 * State of a builder with its JSON view. `check` names what the builder would show inline;
 * in JSON mode the text must parse (and is checked by the API on save).
 */
export function useBuilder<T>(initial: T, fits: (v: unknown) => v is T, check: (v: T) => string | undefined) {
  const [state, setState] = useState<BuilderState<T>>(() =>
    fits(initial) ? { mode: 'builder', value: initial, text: pretty(initial) } : { mode: 'json', value: initial, text: pretty(initial), error: 'The builder cannot show this: edit it as JSON.' },
  );
  const setValue = (value: T) => setState({ mode: 'builder', value, text: pretty(value), error: check(value) });
  const setText = (text: string) => {
    const parsed = parseJsonText(text);
    setState((s) => ({ ...s, text, error: parsed.error, value: parsed.error ? s.value : ((parsed.value ?? []) as T) }));
  };
  const toggle = () =>
    setState((s) => {
      if (s.mode === 'builder') return { ...s, mode: 'json' };
      const parsed = parseJsonText(s.text);
      if (parsed.error) return { ...s, error: parsed.error };
      const value = parsed.value ?? [];
      if (!fits(value)) return { ...s, error: 'The builder cannot show this shape: keep editing it as JSON, or fix it to switch back.' };
      return { mode: 'builder', value, text: s.text, error: check(value) };
    });
  /** The value to save, or the reason not to (also shown inline). */
  const result = (): { value?: unknown; error?: string } => {
    const problem = state.mode === 'builder' ? check(state.value) : parseJsonText(state.text).error;
    if (problem) {
      setState((s) => ({ ...s, error: problem }));
      return { error: problem };
    }
    return { value: state.mode === 'builder' ? state.value : (parseJsonText(state.text).value ?? []) };
  };
  return { state, setValue, setText, toggle, result, reset: (v: T) => setState({ mode: 'builder', value: v, text: pretty(v) }) };
}

/** The frame of a builder: its label, the JSON toggle, the builder or the text, and the inline error. */
export function BuilderFrame<T>(props: { label: string; hint?: string; builder: ReturnType<typeof useBuilder<T>>; children: ReactNode; disabled?: boolean }) {
  const { label, hint, builder, children, disabled } = props;
  const { state } = builder;
  return (
    <fieldset className="builder" disabled={disabled}>
      <legend>{label}</legend>
      <div className="row">
        <button type="button" className="small" aria-pressed={state.mode === 'json'} onClick={builder.toggle}>
          {state.mode === 'json' ? 'Builder' : 'JSON'}
        </button>
        {hint && <span className="hint">{hint}</span>}
      </div>
      {state.mode === 'json' ? <textarea aria-label={`${label} as JSON`} rows={6} value={state.text} onChange={(e) => builder.setText(e.target.value)} /> : children}
      {state.error && (
        <div className="field-error" role="alert">
          {state.error}
        </div>
      )}
    </fieldset>
  );
}

/** Rows of field, operator and value; add and remove. */
export function ConditionsBuilder({ conditions, onChange, label = 'Condition' }: { conditions: Condition[]; onChange: (c: Condition[]) => void; label?: string }) {
  const set = (i: number, patch: Partial<Condition>) => onChange(conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <div className="conditions">
      {conditions.map((c, i) => {
        const problem = conditionProblem(c);
        const n = `${label} ${i + 1}`;
        return (
          <div key={i} className="condition" role="group" aria-label={n}>
            <input aria-label={`${n} field`} placeholder="body.action or header.X-Name" value={c.field} aria-invalid={!!problem} onChange={(e) => set(i, { field: e.target.value })} />
            <select aria-label={`${n} operator`} value={c.operator} onChange={(e) => set(i, { operator: e.target.value, ...(NO_VALUE.has(e.target.value) ? { value: '' } : {}) })}>
              {OPERATORS.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
            {!NO_VALUE.has(c.operator) && <input aria-label={`${n} value`} placeholder="value" value={c.value} onChange={(e) => set(i, { value: e.target.value })} />}
            <button type="button" className="small" aria-label={`Remove ${n.toLowerCase()}`} onClick={() => onChange(conditions.filter((_, j) => j !== i))}>
              Remove
            </button>
            {problem && <div className="field-error">{problem}</div>}
          </div>
        );
      })}
      <button type="button" className="small" onClick={() => onChange([...conditions, { field: 'body.', operator: 'eq', value: '' }])}>
        Add condition
      </button>
    </div>
  );
}

interface Named {
  id: string;
  name: string;
}

/** Typing or routing rules: each a name, AND/OR, conditions, and its own part (parts and separator, or template and transform). */
export function RulesBuilder<R extends TypingRule | RoutingRule>(props: {
  kind: 'typing' | 'routing';
  rules: R[];
  onChange: (rules: R[]) => void;
  templates?: Named[];
  transforms?: Named[];
}) {
  const { kind, rules, onChange } = props;
  const set = (i: number, patch: Partial<R>) => onChange(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const blank = (kind === 'typing'
    ? { name: '', logic: 'AND', conditions: [], parts: [{ path: 'body.' }], separator: '.' }
    : { name: '', logic: 'AND', conditions: [], template_id: null, transform_id: null }) as unknown as R;
  return (
    <div className="rules">
      {rules.map((r, i) => {
        const n = `Rule ${i + 1}`;
        return (
          <div key={i} className="rule card" role="group" aria-label={n}>
            <div className="filters">
              <label className="field">
                <span className="field-label">{n} name</span>
                <input value={r.name} onChange={(e) => set(i, { name: e.target.value } as Partial<R>)} />
              </label>
              <label className="field">
                <span className="field-label">{n} logic</span>
                <select value={r.logic} onChange={(e) => set(i, { logic: e.target.value } as Partial<R>)}>
                  <option>AND</option>
                  <option>OR</option>
                </select>
              </label>
              <button type="button" className="small" onClick={() => onChange(rules.filter((_, j) => j !== i))}>
                Remove rule {i + 1}
              </button>
            </div>
            <span className="field-label">Conditions ({r.logic === 'OR' ? 'any holds' : 'all hold'}; none: always)</span>
            <ConditionsBuilder label={`${n} condition`} conditions={r.conditions} onChange={(conditions) => set(i, { conditions } as Partial<R>)} />
            {kind === 'typing' ? (
              <TypingParts name={n} rule={r as TypingRule} onChange={(patch) => set(i, patch as Partial<R>)} />
            ) : (
              <RouteTargets name={n} rule={r as RoutingRule} templates={props.templates ?? []} transforms={props.transforms ?? []} onChange={(patch) => set(i, patch as Partial<R>)} />
            )}
          </div>
        );
      })}
      <button type="button" className="small" onClick={() => onChange([...rules, blank])}>
        Add rule
      </button>
    </div>
  );
}

/** A typing rule's type: its parts (a body/header path or literal text) joined by the separator. */
function TypingParts({ name, rule, onChange }: { name: string; rule: TypingRule; onChange: (patch: Partial<TypingRule>) => void }) {
  const setPart = (i: number, part: Part) => onChange({ parts: rule.parts.map((p, j) => (j === i ? part : p)) });
  return (
    <div className="parts">
      <span className="field-label">Event type: these parts joined by the separator</span>
      {rule.parts.map((p, i) => {
        const isPath = 'path' in p;
        const n = `${name} part ${i + 1}`;
        return (
          <div key={i} className="condition">
            <select aria-label={`${n} kind`} value={isPath ? 'path' : 'literal'} onChange={(e) => setPart(i, e.target.value === 'path' ? { path: 'body.' } : { literal: '' })}>
              <option value="path">path</option>
              <option value="literal">literal</option>
            </select>
            <input aria-label={n} value={isPath ? p.path : p.literal} onChange={(e) => setPart(i, isPath ? { path: e.target.value } : { literal: e.target.value })} />
            <button type="button" className="small" aria-label={`Remove ${n}`} onClick={() => onChange({ parts: rule.parts.filter((_, j) => j !== i) })}>
              Remove
            </button>
          </div>
        );
      })}
      <div className="row">
        <button type="button" className="small" onClick={() => onChange({ parts: [...rule.parts, { path: 'body.' }] })}>
          Add part
        </button>
        <label className="field">
          <span className="field-label">{name} separator</span>
          <input value={rule.separator ?? ''} onChange={(e) => onChange({ separator: e.target.value || undefined })} />
        </label>
      </div>
    </div>
  );
}

/** A routing rule's template and transform (none: the link's own). */
function RouteTargets(props: { name: string; rule: RoutingRule; templates: Named[]; transforms: Named[]; onChange: (patch: Partial<RoutingRule>) => void }) {
  const { name, rule, onChange } = props;
  const select = (label: string, key: 'template_id' | 'transform_id', options: Named[]) => (
    <label className="field">
      <span className="field-label">
        {name} {label}
      </span>
      <select value={rule[key] ?? ''} onChange={(e) => onChange({ [key]: e.target.value || null })}>
        <option value="">the link&apos;s own</option>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="filters">
      {select('template', 'template_id', props.templates)}
      {select('transform', 'transform_id', props.transforms)}
    </div>
  );
}
