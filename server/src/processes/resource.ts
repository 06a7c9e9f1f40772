import { runProcess } from './run';

await runProcess('resource');
