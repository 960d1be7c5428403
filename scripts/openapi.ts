// Regenerates openapi/openapi.json from the zod schemas; GET /openapi.json serves that file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { defaultConfig } from '../server/config.js';
import { packageRoot } from '../server/boot/package-info.js';

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
}
