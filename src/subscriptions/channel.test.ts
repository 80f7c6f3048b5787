import { Channel } from './channel';

describe('Channel', () => {
  it('hands pushed items to a waiting reader, then buffered ones in order', async () => {
    const channel = new Channel<number>(() => undefined);
    const first = channel.next();
    channel.push(1);
    channel.push(2);
    channel.push(3);
    expect(await first).toEqual({ value: 1, done: false });
    expect(await channel.next()).toEqual({ value: 2, done: false });
    expect(await channel.next()).toEqual({ value: 3, done: false });
  });

  it('unregisters once when the reader returns, and then ends', async () => {
    const onClose = jest.fn();
    const channel = new Channel<number>(onClose);
    channel.push(1);
    await channel.return();
    await channel.return();
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(await channel.next()).toEqual({ value: undefined, done: true });
  });

  it('ends a reader that falls 1000 items behind, after it drains what it has', async () => {
    const onClose = jest.fn();
    const channel = new Channel<number>(onClose);
    for (let i = 0; i < 1001; i++) channel.push(i);
    expect(onClose).toHaveBeenCalledTimes(1);
    let count = 0;
    for await (const _ of channel) count++;
    expect(count).toBe(1000);
  });
});
