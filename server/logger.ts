import pino, { type Logger } from 'pino';

/** JSON lines, or pino-pretty when a person is watching the terminal. */
export function createLogger(level: string, stream: NodeJS.WriteStream = process.stdout): Logger {
  if (level !== 'silent' && stream.isTTY) {
    return pino({ level, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } });
  }
  return pino({ level }, stream);
}
