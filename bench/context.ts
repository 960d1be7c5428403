import type { DeepWorkload } from './seed.js';
import type { Figure } from './rounds.js';
import type { Settings } from './settings.js';

/** What every figure gets from the runner. */
export interface Context {
  settings: Settings;
  /** A temporary folder for databases and files, removed when the run ends. */
  dir: string;
  log(message: string): void;
  /** The database with one deep workload, seeded on first use and shared by the figures that need it. */
  deep(): Promise<DeepWorkload>;
}

export type FigureRun = (ctx: Context) => Promise<Figure[]>;
