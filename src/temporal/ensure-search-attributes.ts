import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_NAMES } from './search-attributes';

/** Registers the relay's Keyword search attributes on the namespace; existing ones are left alone. */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = SEARCH_ATTRIBUTE_NAMES.filter((name) => !(name in (existing.customAttributes ?? {})));
    if (missing.length > 0) {
      const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])),
      });
    }
    return missing;
  } finally {
    await connection.close();
  }
}
