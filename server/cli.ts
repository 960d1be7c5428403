import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { CatalogError } from './domain/catalog/index.js';
import { ConfigError, HELP_TEXT, describeConfig, printedKey, resolveCli } from './config.js';
import { ScenarioError } from './domain/control/scenarios.js';
import { SnapshotFileError } from './domain/snapshots/service.js';
import { DatabasePathError } from '../store/db.js';
import { DatabaseInUseError } from '../store/lock.js';
import { createLogger } from './logger.js';
import { packageVersion } from './boot/package-info.js';

/** What a user pastes to point the Nodus SDK at this server. */
function sdkExportLine(url: string, apiKey: string): string {
  return `export NODUS_BASE_URL=${url} NODUS_API_KEY=${apiKey}`;
}

/**
 * npm and npx start the server under `sh -c`, and that shell dies of a SIGTERM sent to the launcher
 * without passing it on, leaving the server serving with no one to stop it. Started that way, the
 * server leaves when its parent does: the parent changes when the shell is gone.
 */
function followLauncher(env: NodeJS.ProcessEnv, stop: (reason: string) => void): void {
  if (env.npm_lifecycle_event === undefined) return;
  const launcher = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(watch);
    stop('launcher exited');
  }, 250);
  watch.unref();
}

/**
 * The `nodus-mock` command: parses the options, serves until SIGINT or SIGTERM, or its npm launcher
 * exits. `nodus-mock verify` checks a real control plane against the document instead.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (argv[0] === 'verify') {
    // Imported only for the command: a server's start does not load the checker and ajv.
    const { verifyCommand } = await import('./verify/command.js');
    const write = (stream: NodeJS.WriteStream) => (text: string) => void stream.write(text);
    process.exit(await verifyCommand(argv.slice(1), env, { out: write(process.stdout), err: write(process.stderr) }));
  }
  let request;
  try {
    request = resolveCli(argv, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`nodus-mock: ${err.message} (see --help)\n`);
    process.exit(2);
  }
  if (request.kind === 'help') {
    process.stdout.write(`${HELP_TEXT}\n`);
    return;
  }
  if (request.kind === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  const { config } = request;
  const logger = createLogger(config.logLevel, process.stdout, config.logFormat);
  logger.info({ config: describeConfig(config) }, 'configuration');

  let app;
  try {
    app = await buildApp({ config, logger });
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    // A catalog, scenario or snapshot file that fails validation, a --db folder that cannot be
    // made or a database another server holds is a configuration mistake, like a bad flag.
    const configMistake = err instanceof CatalogError || err instanceof ScenarioError || err instanceof SnapshotFileError ||
      err instanceof DatabasePathError || err instanceof DatabaseInUseError;
    process.stderr.write(`nodus-mock: ${configMistake ? '' : 'cannot start: '}${(err as Error).message}\n`);
    process.exit(configMistake ? 2 : 1);
  }

  const { port } = app.server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const key = printedKey(config);
  process.stdout.write(`nodus-mock ${packageVersion()} listening on ${url}\n${sdkExportLine(url, key)}\ninspector: ${url}/_mock/ui/#key=${key}${app.restoredWorkload ? `&workload=${app.restoredWorkload}` : ''}\n`);

  let closing = false;
  const shutdown = (reason: string) => {
    if (closing) return;
    closing = true;
    logger.info({ reason }, 'shutting down: no new connections, finishing in-flight requests');
    app.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'error while closing');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  followLauncher(env, shutdown);
}
