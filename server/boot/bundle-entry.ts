// What dist/bundle/server.cjs exports (scripts/bundle.mjs): the CLI and the Node API, one copy of
// the server for both.
export { runCli } from '../cli.js';
export { MockControlError, startMockServer } from '../../index.js';
