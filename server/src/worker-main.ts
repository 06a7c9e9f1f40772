// `pnpm worker`: the job worker alone, for deployments that scale it apart from the API.
import { openDatabase } from './database';
import { loadEnv } from './env';
import { runProcess } from './processes/run';

const env = loadEnv();
const database = await openDatabase(env);
process.once('exit', () => void database.close());
await runProcess('worker', { ...env, DATABASE_URL: database.url });
