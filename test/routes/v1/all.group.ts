import { runGroup } from '../../helpers/tap.js';

await runGroup(import.meta.url);
