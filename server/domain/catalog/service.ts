import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import type { CatalogEnvironment } from './environments.js';

/** The environment catalog, as loaded at start and fixed for the server's life. */
export function createCatalogService(deps: DomainContext) {
  const { catalog } = deps;
  return {
    environments(): { reviewedAt: string | undefined; environments: readonly CatalogEnvironment[] } {
      return { reviewedAt: catalog.reviewedAt, environments: catalog.environments };
    },

    /** One environment, or a 404 naming it. */
    environment(id: string): CatalogEnvironment {
      const environment = catalog.environment(id);
      if (!environment) throw notFound(`environment ${id}`);
      return environment;
    },
  };
}
