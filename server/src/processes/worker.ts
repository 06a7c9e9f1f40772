import { runProcess } from './run';

await runProcess('worker');
