import { temporal } from '@temporalio/proto';
import { type TemporalSettings, connectTemporal, explainPermissionDenied } from './client';
import { SEARCH_ATTRIBUTE_NAMES } from './search-attributes';

/** How long a Temporal frontend may take to use attributes just added (its caches refresh every 10 to 60 s). */
const USABLE_WITHIN_MS = 120_000;

/**
 * Registers the relay's Keyword search attributes on the namespace; existing ones are left alone. Ones it adds are
 * waited for until the frontend accepts them: a server keeps the namespace's attributes in caches that refresh on a
 * timer, and until then a workflow started with them is refused. Resolves with the names it added.
 */
export async function ensureSearchAttributes(settings: TemporalSettings, opts: { usableWithinMs?: number } = {}): Promise<string[]> {
  const { namespace } = settings;
  const connection = await connectTemporal(settings);
  try {
    const existing = await connection.operatorService
      .listSearchAttributes({ namespace })
      .catch((err: unknown) => Promise.reject(explainPermissionDenied(err, settings, 'list the search attributes of', 'read') ?? err));
    const missing = SEARCH_ATTRIBUTE_NAMES.filter((name) => !(name in (existing.customAttributes ?? {})));
    if (missing.length > 0) {
      const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
      // An admin call: a key that may only write stops here, once, when the attributes are missing.
      await connection.operatorService
        .addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])) })
        .catch((err: unknown) => Promise.reject(explainPermissionDenied(err, settings, `add the relay's search attributes (${missing.join(', ')}) to`, 'admin') ?? err));
      await untilUsable(connection.workflowService, namespace, missing, opts.usableWithinMs ?? USABLE_WITHIN_MS);
    }
    return missing;
  } finally {
    await connection.close();
  }
}

/**
 * Waits until a visibility query naming every attribute is accepted: the frontend checks it against the same
 * caches as a workflow start's attributes. (A count, so it costs the server next to nothing.)
 */
export async function untilUsable(
  workflowService: { countWorkflowExecutions(req: { namespace: string; query: string }): Promise<unknown> },
  namespace: string,
  names: string[],
  withinMs: number,
): Promise<void> {
  const query = names.map((name) => `${name} = 'relay-probe'`).join(' AND ');
  const deadline = Date.now() + withinMs;
  for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
    try {
      await workflowService.countWorkflowExecutions({ namespace, query });
      return;
    } catch (err) {
      if (Date.now() + wait > deadline) {
        throw new Error(`the search attributes ${names.join(', ')} were added to namespace ${namespace}, but the Temporal frontend still refuses them after ${Math.round(withinMs / 1000)} s: ${(err as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
