import foundation from './001-foundation.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Applied in order, each in its own transaction; never edit one that has shipped. */
export const MIGRATIONS: Migration[] = [foundation];
