import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with the plain line CI reads: `N passed, N failed` (and skipped). */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) counts[test.result().state] += 1;
      // A file that failed outside its tests (setup, import) counts as a failure of its own.
      const testFailed = [...module.children.allTests()].some((t) => t.result().state === 'failed');
      if (module.state() === 'failed' && !testFailed) counts.failed += 1;
    }
    console.log(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
