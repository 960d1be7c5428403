import { createHash } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import { sha256Hex } from './json-text.js';

/** In ASCII order, so fixed-width numbers written in it sort as the numbers do. */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const BASE62_DIGIT = '[0-9A-Za-z]';
const DIGIT_VALUE = new Map([...BASE62].map((c, i) => [c, BigInt(i)]));

/** The last `length` base-62 digits of `n`, least significant first. */
function base62Digits(n: bigint, length: number): string[] {
  const digits: string[] = [];
  for (let i = 0; i < length; i++, n /= 62n) digits.push(BASE62[Number(n % 62n)]);
  return digits;
}

/** `n` modulo 62^length as `length` base-62 digits, most significant first. */
export const toBase62 = (n: bigint, length: number): string => base62Digits(n, length).reverse().join('');

export const fromBase62 = (digits: string): bigint => [...digits].reduce((n, c) => n * 62n + DIGIT_VALUE.get(c)!, 0n);

/**
 * The ids the server writes and holds unique across all its tenants (a UNIQUE or PRIMARY KEY text
 * column in store/migrations), by prefix: the prefix, `_`, and this many base-62 digits.
 */
export const SERVER_IDS = {
  wl: 20,
  asset: 20,
  sec: 20,
  conn: 20,
  flt: 16,
  wr: 16,
  msg: 24,
} as const;
export type ServerIdKind = keyof typeof SERVER_IDS;

/** The whole of an id of the kind, as its generator writes it. */
export const serverIdPattern = (kind: ServerIdKind): RegExp => new RegExp(`^${kind}_${BASE62_DIGIT}{${SERVER_IDS[kind]}}$`);

/** A generator of the kind's ids, every digit random. */
function randomIds(kind: ServerIdKind): () => string {
  const draw = customAlphabet(BASE62, SERVER_IDS[kind]);
  return () => `${kind}_${draw()}`;
}

export const newAssetId = randomIds('asset');
export const newSecretId = randomIds('sec');
export const newConnectionId = randomIds('conn');
export const newFaultId = randomIds('flt');
export const newWorkloadRuleId = randomIds('wr');

/** A query import's export, named in its asset's JSON and never looked up, so not held unique: 20 lower-case base-36 digits. */
export const newQueryExportId = ((draw) => () => `cqe_${draw()}`)(customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20));

const WORKLOAD_TIME_DIGITS = 8;
const randomWorkloadDigits = customAlphabet(BASE62, SERVER_IDS.wl - WORKLOAD_TIME_DIGITS);

/**
 * Eight base-62 digits of the wall-clock millisecond, then twelve random ones (71 bits). Ids in
 * creation order make the inserts into the indexes keyed by workload id (workloads, grading plans)
 * appends at their end, which a group commit's launches share, rather than one page each at a
 * random place (bench/, launch: WAL pages and page-cache misses per launch).
 */
export function newWorkloadId(): string {
  return `wl_${toBase62(BigInt(Date.now()), WORKLOAD_TIME_DIGITS)}${randomWorkloadDigits()}`;
}

/**
 * Standard Webhooks message ids (143 bits), derived from the status change they announce (a
 * workload id is unique on the server, and a workload passes a status once at a given virtual
 * time), not drawn at random: a restored tenant announces the changes its runs go on to make under
 * the same ids as the original would (docs/snapshots.md). Least significant digit first.
 */
export function webhookMessageId(workloadId: string, type: string, atMs: number): string {
  const n = BigInt(`0x${createHash('sha256').update(`${workloadId}\n${type}\n${atMs}`).digest('hex')}`);
  return `msg_${base62Digits(n, SERVER_IDS.msg).join('')}`;
}

/** Hex digits of a derived id's digest. */
export const DERIVED_ID_DIGITS = 24;
const derived = (kind: string, text: string) => `${kind}_${sha256Hex(text).slice(0, DERIVED_ID_DIGITS)}`;

/**
 * Ids the server derives from a workload's id and an ordinal on every read, never stores: the
 * same run always shows the same ids. One list, so a snapshot restored into another tenant
 * (server/domain/snapshots/fork.ts) can find the mentions of them a document holds (a webhook
 * body's latest checkpoint) and derive them again from the copy's own workload id.
 */
export const DERIVED_IDS = {
  /** A checkpoint's manifest, by its sequence in the run (from 1). */
  mf: (workloadId: string, sequence: number) => derived('mf', `${workloadId}\n${sequence}`),
  /** A freeze, by its ordinal among the run's freezes (from 1). */
  frz: (workloadId: string, ordinal: number) => derived('frz', `${workloadId}\nfreeze\n${ordinal}`),
  /** A ledger entry, by its billing hour (from 1). */
  led: (workloadId: string, hour: number) => derived('led', `${workloadId}\nledger\n${hour}`),
  /** The settlement: one per run, whatever the ordinal. */
  stl: (workloadId: string) => derived('stl', `${workloadId}\nsettlement`),
} as const;
export type DerivedIdKind = keyof typeof DERIVED_IDS;
