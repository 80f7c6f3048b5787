/**
 * Real providers' payloads for the schema tests: @octokit/webhooks-examples, a corpus of
 * codehost_a webhooks (58 event types, a few examples each), in the order the package lists them.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const examples = require('@octokit/webhooks-examples') as Array<{ name: string; examples: Array<Record<string, any>> }>;

export interface CorpusEvent {
  type: string;
  payload: Record<string, any>;
}

export const CORPUS: CorpusEvent[] = examples.flatMap((e) => e.examples.map((payload) => ({ type: e.name, payload })));

export const CORPUS_TYPES = [...new Set(CORPUS.map((e) => e.type))];

/** The corpus's examples of one type (the first one first). */
export const examplesOf = (type: string) => CORPUS.filter((e) => e.type === type).map((e) => e.payload);

export const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
