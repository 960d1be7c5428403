import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Config } from './config.js';

// pino-pretty is required only when a terminal is watching, so a server under test never loads it.
const require = createRequire(import.meta.url);

/**
 * Where a secret could sit in a logged object (a request body, a secret write): pino censors these
 * paths in every line, so no log can carry a secret value even if a body is ever logged.
 */
export const LOG_REDACT = {
  paths: ['value', 'body.value', 'req.body.value', 'request.body.value', 'secret', 'body.secret', 'req.body.secret'],
  censor: '[redacted]',
};

export type LogFormat = Config['logFormat'];

/**
 * JSON lines, or pino-pretty's readable lines: asked for, or (`auto`) when a person is watching
 * the terminal. Pipes, files and log collectors get JSON.
 */
export function createLogger(level: string, stream: NodeJS.WriteStream = process.stdout, format: LogFormat = 'auto'): Logger {
  if (level !== 'silent' && (format === 'pretty' || (format === 'auto' && stream.isTTY))) {
    // In this thread, not as a pino transport: a transport's worker is a file that pino finds
    // relative to its own folder, which the bundled server (scripts/bundle.mjs) does not have.
    const pretty = require('pino-pretty') as typeof PinoPretty;
    return pino({ level, redact: LOG_REDACT }, pretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: stream }));
  }
  return pino({ level, redact: LOG_REDACT }, stream);
}
