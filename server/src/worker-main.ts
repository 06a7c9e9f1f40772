// `pnpm worker`: the job worker alone, for deployments that scale it apart from the API.
import { openDatabase } from './database';
import { createLogger } from './log';
import { loadEnvOrExit, runProcess } from './processes/run';
import { exitOnStartupFailure } from './processes/startup-failure';

const env = loadEnvOrExit('beckon-worker');
const database = await openDatabase(env).catch((error: unknown) =>
  exitOnStartupFailure(createLogger(env, 'beckon-worker'), error, env),
);
process.once('exit', () => void database.close());
await runProcess('worker', { ...env, DATABASE_URL: database.url });
