#!/usr/bin/env node
import { loadBundle } from './load-bundle.js';

await loadBundle().runCli(process.argv.slice(2), process.env);
