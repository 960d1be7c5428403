// Regenerates openapi/openapi.json from the zod schemas; GET /openapi.json serves that file. Also
// writes docs/snapshot.schema.json, the JSON Schema of the snapshot format, from the same schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { defaultConfig } from '../server/config.js';
import { packageRoot } from '../server/boot/package-info.js';
import { snapshotJsonSchema } from '../openapi/snapshot.js';

export async function generateOpenApi(): Promise<string> {
  const app = await buildApp({ config: defaultConfig({ db: ':memory:', logLevel: 'silent' }), describe: true });
  try {
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const target = join(packageRoot(), 'openapi', 'openapi.json');
  writeFileSync(target, await generateOpenApi());
  process.stdout.write(`wrote ${target}\n`);
  const schema = join(packageRoot(), 'docs', 'snapshot.schema.json');
  writeFileSync(schema, snapshotJsonSchema());
  process.stdout.write(`wrote ${schema}\n`);
}
