// Removes dist/ so no compiled file outlives its deleted source (tap would still run a stale test).
import { rmSync } from 'node:fs';
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
