import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestServer } from '../harness';
import { attachmentsSuite } from './attachments-suite';

/** The default storage: files under DATA_DIR/attachments/<org_id>/<attachment_id>. */
const root = (server: TestServer) => path.join(server.deps.env.DATA_DIR, 'attachments');

attachmentsSuite({
  name: 'local',
  env: () => ({}),
  filesOf: async (server, orgId) => {
    const dir = path.join(root(server), orgId);
    return existsSync(dir) ? (await readdir(dir)).sort() : [];
  },
  bytesOf: async (server, orgId, attachmentId) => {
    const file = path.join(root(server), orgId, attachmentId);
    return existsSync(file) ? readFile(file) : null;
  },
  leftovers: (server) => readdir(path.join(root(server), '.tmp')),
});
