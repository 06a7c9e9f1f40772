export { type Finished, finishedRun } from './child-output';
export { createTestDatabase, type TestDatabase } from './database';
export { Factories, planLimitBody, type SystemRole, signedInCallers } from './factories';
export { type DiscordCall, type FakeDiscord, startFakeDiscord } from './fake-discord';
export { type PaymentCall, startFakePayments } from './fake-payments';
export { type FakeS3, type S3Call, startFakeS3 } from './fake-s3';
export { type FakeSlack, type SlackCall, signedInteraction, startFakeSlack } from './fake-slack';
export { type FakeTeams, type SignOptions, startFakeTeams, type TeamsCall } from './fake-teams';
export { deliverUpdate, type FakeTelegram, startFakeTelegram, type TelegramCall } from './fake-telegram';
export { type FakeTwilio, startFakeTwilio, type TwilioMessage, twilioSignature } from './fake-twilio';
export { HttpClient, type HttpResponse } from './http';
export {
  type JsonRpcAnswer,
  MCP_ACCEPT,
  mcpError,
  mcpRequest,
  STATELESS_REVISION,
  type StatelessAnswer,
  type StatelessOptions,
  statelessRequest,
  TASKS_EXTENSION,
} from './mcp';
export { freePort } from './ports';
export { type Received, receiverPool, startReceiver } from './receiver';
export { startTestServer, TESTS_NEVER_MEET, type TestServer, type TestServerOptions } from './server';
