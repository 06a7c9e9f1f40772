// `pnpm db:migrate`: applies migrations to DATABASE_URL, or to the embedded database.
import { openDatabase } from '../database';
import { loadEnv } from '../env';

const database = await openDatabase(loadEnv());
await database.close();
console.log(`migrations applied to ${database.description}`);
