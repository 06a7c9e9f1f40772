// The parts of graphile-worker that graphile-internals.ts, orphans.ts (and the patch) rely on, read from the
// installed package, so an upgrade that changes one fails here with a message naming it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// The package exports no package.json: its root is the directory above its entry's dist/.
const root = path.dirname(path.dirname(require.resolve('graphile-worker')));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('graphile-worker internals Beckon depends on', () => {
  it('is the patched version', () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    expect(version, 'the patch names this exact version: redo or drop it with the upgrade').toBe('0.18.0');
    expect(
      read('dist/main.js').match(/Beckon patch/g),
      'patches/graphile-worker@0.18.0.patch is not applied',
    ).toHaveLength(2);
  });

  it('keeps who holds a job, and since when, in _private_jobs', () => {
    const migrations = read('dist/generated/sql.js');
    expect(migrations, 'graphile_worker._private_jobs is gone: stalePools must follow').toContain(
      '_private_jobs',
    );
    expect(migrations, '_private_jobs.locked_by / locked_at changed: stalePools must follow').toMatch(
      /locked_by text[\s\S]*locked_at timestamptz|locked_at timestamptz[\s\S]*locked_by text/,
    );
  });

  it('tells which jobs each fetch received, each at an attempt the fetch raised', () => {
    expect(
      read('dist/localQueue.js'),
      'the "localQueue:getJobs:complete" event is gone: trackFetches (orphans.ts) must follow',
    ).toContain('"localQueue:getJobs:complete"');
    expect(
      read('dist/sql/getJobs.js'),
      'a fetch no longer raises attempts: a fetch cannot be told by (id, attempts) in orphans.ts',
    ).toMatch(/attempts = jobs\.attempts \+ 1,\s*locked_by = \$1::text/);
    expect(read('dist/generated/sql.js'), '_private_job_queues is gone: unlockJobs must follow').toContain(
      '_private_job_queues',
    );
  });

  it('wakes its workers on the jobs:insert channel', () => {
    expect(
      read('dist/main.js'),
      'workers no longer LISTEN on "jobs:insert": wakeWorkers must follow',
    ).toContain('LISTEN "jobs:insert"');
  });
});
