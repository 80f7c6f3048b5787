import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Secrets never reach a log line: request/response bodies are not logged, and
 * these keys are redacted wherever they appear in a logged object.
 */
const REDACT = [
  '*.signing_secret', '*.signingSecret', '*.webhook_url', '*.webhookUrl', '*.bot_token', '*.botToken',
  '*.password', '*.access_token', '*.refresh_token', '*.authorization', 'req.headers.authorization',
];

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'relay'): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } });
}
