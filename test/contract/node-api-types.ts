/**
 * Compile-time only: index.ts writes the control calls' types out by hand, so that
 * dist/index.d.ts needs no zod, and this file fails the build (tsc) when one of them stops being
 * exactly what the schemas of the calls it describes accept or answer. The options are derived
 * from the settings' table; what they take is checked here too. Nothing here runs.
 */
import type { z } from 'zod';
import type { Fault as FaultSchema, FaultRule as FaultRuleSchema, JournalEntry as JournalEntrySchema } from '../../openapi/mock.js';
import type { SnapshotRestored as SnapshotRestoredSchema } from '../../openapi/snapshot.js';
import type { Fault, FaultRule, JournalEntry, MockKey, MockServerOptions, MockSnapshotRestored } from '../../index.js';

/** true only when A and B are the same type: every field, its optionality and its type. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const assertTrue = <T extends true>(): T | undefined => undefined;

// What mock.fault(rule) sends to POST /_mock/faults, and the stored rule it resolves with.
assertTrue<Equals<FaultRule, z.input<typeof FaultRuleSchema>>>();
assertTrue<Equals<Fault, z.output<typeof FaultSchema>>>();
// What mock.requests() resolves with: GET /_mock/requests' entries.
assertTrue<Equals<JournalEntry, z.output<typeof JournalEntrySchema>>>();
// What mock.restore(doc) resolves with: PUT /_mock/snapshot's answer.
assertTrue<Equals<MockSnapshotRestored, z.output<typeof SnapshotRestoredSchema>>>();

// What startMockServer takes: the values the server runs with, keys as objects, host lists as text.
assertTrue<Equals<MockServerOptions['port'], number | undefined>>();
assertTrue<Equals<MockServerOptions['clock'], 'realtime' | 'manual' | undefined>>();
assertTrue<Equals<MockServerOptions['keys'], MockKey[] | undefined>>();
assertTrue<Equals<MockServerOptions['webhookHosts'], string | undefined>>();
assertTrue<Equals<MockServerOptions['restoreKey'], string | undefined>>();

// The check itself tells a field that became optional, or wider, from the same type.
// @ts-expect-error an optional field is drift
assertTrue<Equals<{ id: number }, { id?: number }>>();
// @ts-expect-error a wider field is drift
assertTrue<Equals<{ status: number }, { status: number | null }>>();
