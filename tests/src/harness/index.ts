export { createTestDatabase, type TestDatabase } from './database';
export { Factories, planLimitBody, type SystemRole, signedInCallers } from './factories';
export { type PaymentCall, startFakePayments } from './fake-payments';
export { type FakeS3, type S3Call, startFakeS3 } from './fake-s3';
export { type FakeSlack, type SlackCall, signedInteraction, startFakeSlack } from './fake-slack';
export { HttpClient, type HttpResponse } from './http';
export { freePort } from './ports';
export { type Received, receiverPool, startReceiver } from './receiver';
export { startTestServer, TESTS_NEVER_MEET, type TestServer, type TestServerOptions } from './server';
