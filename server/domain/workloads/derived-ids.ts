import { sha256Hex } from '../canonical.js';

/**
 * Ids the server derives from a workload's id and an ordinal on every read, never stores: the
 * same run always shows the same ids. One list, so a snapshot restored into another tenant
 * (server/domain/snapshots/fork.ts) can find the mentions of them a document holds (a webhook
 * body's latest checkpoint) and derive them again from the copy's own workload id.
 */
export const DERIVED_IDS = {
  /** A checkpoint's manifest, by its sequence in the run (from 1). */
  mf: (workloadId: string, sequence: number) => `mf_${sha256Hex(`${workloadId}\n${sequence}`).slice(0, 24)}`,
  /** A freeze, by its ordinal among the run's freezes (from 1). */
  frz: (workloadId: string, ordinal: number) => `frz_${sha256Hex(`${workloadId}\nfreeze\n${ordinal}`).slice(0, 24)}`,
  /** A ledger entry, by its billing hour (from 1). */
  led: (workloadId: string, hour: number) => `led_${sha256Hex(`${workloadId}\nledger\n${hour}`).slice(0, 24)}`,
  /** The settlement: one per run, whatever the ordinal. */
  stl: (workloadId: string) => `stl_${sha256Hex(`${workloadId}\nsettlement`).slice(0, 24)}`,
} as const;
