import readline from 'node:readline';
import { Writable } from 'node:stream';

/**
 * Asks one question on the terminal (or reads one line from piped stdin).
 * `hidden` echoes nothing, for passwords.
 */
export async function ask(question: string, opts: { hidden?: boolean } = {}): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: process.stdin.isTTY === true });
  try {
    const answer = new Promise<string>((resolve, reject) => {
      rl.question(question, resolve);
      rl.once('close', () => reject(new Error('no answer: stdin closed')));
    });
    muted = opts.hidden === true;
    return (await answer).trim();
  } finally {
    if (opts.hidden) process.stderr.write('\n');
    rl.close();
  }
}
