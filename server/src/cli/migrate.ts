// `pnpm db:migrate`: applies migrations to DATABASE_URL, or to the embedded database.
import { openDatabase } from '../database';
import { ConfigError, loadEnv } from '../env';
import { startupProblem } from '../processes/startup-failure';

try {
  const database = await openDatabase(loadEnv());
  await database.close();
  console.log(`migrations applied to ${database.description}`);
} catch (error) {
  // A wrong setting, an unreachable database or one held by a running Beckon: its one sentence.
  const problem =
    error instanceof ConfigError ? error : startupProblem(error, { DATABASE_URL: process.env.DATABASE_URL });
  if (!problem) throw error;
  console.error(problem.message);
  process.exit(1);
}
