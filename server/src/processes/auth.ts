import { runProcess } from './run';

await runProcess('auth');
