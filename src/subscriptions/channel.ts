/**
 * A push-to-pull queue: the feed pushes, graphql-ws pulls with `next()`, and
 * `return()` (the client unsubscribed or disconnected) unregisters. A
 * subscriber that falls MAX_BUFFERED items behind is ended rather than
 * letting memory grow; it can subscribe again and page through the list.
 */
const MAX_BUFFERED = 1000;

export class Channel<T> implements AsyncIterableIterator<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private done = false;

  constructor(private readonly onClose: () => void) {}

  push(item: T): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: item, done: false });
      return;
    }
    if (this.buffer.length >= MAX_BUFFERED) {
      this.close();
      return;
    }
    this.buffer.push(item);
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.onClose();
    if (this.buffer.length === 0 && this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift()!, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.buffer.length = 0;
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
