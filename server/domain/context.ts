import type { Config } from '../config.js';
import type { Catalog, CatalogRecipe } from './catalog/index.js';
import type { VirtualClock } from './clock.js';
import type { CommittedReads, JournalPort, MoveKeys, RegisterKey, SnapshotPort, UnitsOfWork } from './unit.js';
import type { OutputCache } from './workloads/outputs.js';
import type { Materialiser } from './workloads/materialise.js';

/** Review tokens under the server's secret (launches/rl-runs.ts, createReviewTokens). */
export interface ReviewTokens {
  sign(tenantId: string, configurationJson: string, recipe: CatalogRecipe): string;
}

/** What every domain operation works with; built once by createServices (services.ts). */
export interface DomainContext {
  readonly config: Config;
  /** What is read outside a unit, method by method: the table stores are a unit's alone (TenantUnit.tables). */
  readonly committed: CommittedReads;
  readonly registerKey: RegisterKey;
  readonly moveKeys: MoveKeys;
  readonly journal: JournalPort;
  readonly snapshots: SnapshotPort;
  /** The readiness probe: throws when the database does not answer. */
  readonly ping: () => void;
  readonly clock: VirtualClock;
  readonly catalog: Catalog;
  readonly materialiser: Materialiser;
  /** The one way into a tenant's state at its now: one transaction per operation. */
  readonly units: UnitsOfWork;
  /** Signs review tokens under the server's secret. */
  readonly reviews: ReviewTokens;
  /** What completed workloads published, by workload id; derived, so safe to forget. */
  readonly outputs: OutputCache;
}
