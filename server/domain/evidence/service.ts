import type { DomainContext } from '../context.js';

/** Task evidence, grading receipts and summaries of RL runs. */
export function createEvidenceService(deps: DomainContext) {
  void deps;
  return {};
}
