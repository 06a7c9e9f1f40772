import { afterAll, beforeAll } from 'vitest';
import { type FakeS3, startFakeS3 } from '../harness/fake-s3';
import { attachmentsSuite } from './attachments-suite';

let s3: FakeS3;
beforeAll(async () => {
  s3 = await startFakeS3();
});
afterAll(() => s3?.close());

/** The same rules with STORAGE=s3: objects `attachments/<org_id>/<attachment_id>` in the fake's bucket. */
attachmentsSuite({
  name: 's3',
  env: () => s3.env(),
  filesOf: async (_server, orgId) => s3.keys(`attachments/${orgId}/`).map((key) => key.split('/')[2] ?? ''),
  bytesOf: async (_server, orgId, attachmentId) => s3.object(`attachments/${orgId}/${attachmentId}`),
  // A PutObject stores the whole object or nothing: there is no half-written state to look for.
  leftovers: async () => [],
});
