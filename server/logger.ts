import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

// pino-pretty is required only when a terminal is watching, so a server under test never loads it.
const require = createRequire(import.meta.url);

/** JSON lines, or pino-pretty when a person is watching the terminal. */
export function createLogger(level: string, stream: NodeJS.WriteStream = process.stdout): Logger {
  if (level !== 'silent' && stream.isTTY) {
    // In this thread, not as a pino transport: a transport's worker is a file that pino finds
    // relative to its own folder, which the bundled server (scripts/bundle.mjs) does not have.
    const pretty = require('pino-pretty') as typeof PinoPretty;
    return pino({ level }, pretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: stream }));
  }
  return pino({ level }, stream);
}
