import DataLoader from 'dataloader';

/**
 * Per-operation DataLoaders, so that nested fields of a list (e.g.
 * `events { deliveries { attempts } }`) cost one query per level, not one per
 * row. Field resolvers ask for a loader by name with its batch function; the
 * first call creates it. Subscriptions clear it before each payload so that
 * long-lived operations never serve stale rows.
 */
export class Loaders {
  private readonly loaders = new Map<string, DataLoader<string, unknown>>();

  get<V>(name: string, batch: (keys: readonly string[]) => Promise<V[]>): DataLoader<string, V> {
    let loader = this.loaders.get(name);
    if (!loader) {
      loader = new DataLoader<string, unknown>(batch, { maxBatchSize: 500 });
      this.loaders.set(name, loader);
    }
    return loader as DataLoader<string, V>;
  }

  clear(): void {
    this.loaders.clear();
  }
}
