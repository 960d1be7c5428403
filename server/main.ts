#!/usr/bin/env node
import { loadBundle } from './boot/load-bundle.js';

await loadBundle().runCli(process.argv.slice(2), process.env);
