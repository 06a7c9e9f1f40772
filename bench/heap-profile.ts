/**
 * Loaded with `--import` into the benchmarked resource process when BENCH_HEAP_PROF=<dir> is set
 * (lib.ts): V8's sampling heap profiler over the process's whole life, counting the objects that
 * garbage collection has already taken too, so the profile shows where memory is allocated (the
 * work the collector is given), not what is left at the end. Written to
 * `<dir>/heap-<pid>.heapprofile` as the process exits; read it with `bench/profile-top.ts` or
 * Chrome DevTools.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const dir = process.env.BENCH_HEAP_PROF;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // On the main thread the inspector answers synchronously, so this completes inside 'exit'.
  process.once('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(`${dir}/heap-${process.pid}.heapprofile`, JSON.stringify(result.profile));
    });
  });
}
