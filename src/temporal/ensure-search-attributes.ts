import { temporal } from '@temporalio/proto';
import { type TemporalSettings, connectTemporal, explainPermissionDenied } from './client';
import { SEARCH_ATTRIBUTE_NAMES } from './search-attributes';

/** Registers the relay's Keyword search attributes on the namespace; existing ones are left alone. */
export async function ensureSearchAttributes(settings: TemporalSettings): Promise<string[]> {
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
    }
    return missing;
  } finally {
    await connection.close();
  }
}
