import { z } from 'zod';
import { lazy } from './lazy.js';

/** Schemas of the /_mock asset levers (docs/assets.md): what a test reads back, how it fails an import. */

export const AssetFiles = lazy(() => z
  .object({
    asset_id: z.string(),
    name: z.string(),
    archive: z.enum(['tar', 'tar.gz', 'zip']).nullable().describe('null for a plain file'),
    files: z
      .array(z.object({ path: z.string(), type: z.enum(['file', 'directory']), bytes: z.int().min(0) }))
      .describe('an archive\'s members in archive order; empty for a plain file'),
  })
  .meta({ id: 'MockAssetFiles' }));

export const AssetFailRequest = lazy(() => z
  .strictObject({
    error: z.string().min(1).max(512).optional().describe('the asset\'s `error` text (default: a generic one)'),
  })
  .meta({ id: 'MockAssetFail' }));
