import readline from 'node:readline';
import { Writable } from 'node:stream';

/** Piped answers (`printf 'me@x\npw\n' | relay login`): one reader for all questions, so no buffered line is lost between them. */
let piped: { rl: readline.Interface; lines: AsyncIterator<string> } | undefined;

/**
 * Asks one question on the terminal (or reads the next line of piped
 * stdin). `hidden` echoes nothing, for passwords. Questions go to stderr so
 * that stdout stays the command's answer.
 */
/** Esc at a question asked with `escapable`: the caller keeps what it had. */
export class PromptEscaped extends Error {
  constructor() {
    super('escaped');
    this.name = 'PromptEscaped';
  }
}

export async function ask(question: string, opts: { hidden?: boolean; escapable?: boolean; onInterrupt?: () => void } = {}): Promise<string> {
  if (!process.stdin.isTTY) {
    if (!piped) {
      const rl = readline.createInterface({ input: process.stdin, terminal: false });
      piped = { rl, lines: rl[Symbol.asyncIterator]() };
    }
    process.stderr.write(question);
    const next = await piped.lines.next();
    process.stderr.write('\n');
    if (next.done) throw new Error(`no answer to "${question.trim()}": stdin ended`);
    return next.value.trim();
  }
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  let onKey: ((text: string | undefined, key: { name?: string } | undefined) => void) | undefined;
  try {
    const answer = new Promise<string>((resolve, reject) => {
      rl.question(question, resolve);
      if (opts.escapable) {
        // readline emits a lone Esc as the key `escape` (after its escape-sequence timeout, so arrows are not mistaken for it).
        onKey = (_text, key) => {
          if (key?.name !== 'escape') return;
          process.stderr.write('\n');
          reject(new PromptEscaped());
        };
        process.stdin.on('keypress', onKey);
      }
      // Ctrl+C at a prompt (readline's raw mode makes it a key): leave, as a terminal user expects.
      rl.on('SIGINT', () => {
        process.stderr.write('\n');
        if (!opts.onInterrupt) process.exit(130);
        opts.onInterrupt();
        reject(new Error('interrupted'));
      });
    });
    muted = opts.hidden === true;
    return (await answer).trim();
  } finally {
    if (onKey) process.stdin.off('keypress', onKey);
    if (opts.hidden) process.stderr.write('\n');
    rl.close();
  }
}
