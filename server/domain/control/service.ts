import type { DomainContext } from '../context.js';

/** The /_mock levers: clock, faults, journal, admission, reset, scenarios. */
export function createControlService(deps: DomainContext) {
  void deps;
  return {};
}
