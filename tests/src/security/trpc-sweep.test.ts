import { sweepSuite } from './sweep-suite';

// Every procedure of both routers over TRPC (tests/src/security/sweep-suite.ts says what is checked).
sweepSuite('trpc');
