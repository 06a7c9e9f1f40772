import { Factories, type HttpClient } from '../harness';
import type { Walk } from './example-calls';

/** Retention periods, a person's export and erasure, the organization's export and deletion. */
export async function privacy({ server, record }: Walk, owner: HttpClient, orgId: string) {
  const call = record.on('resource');
  await call(owner, 'GET /admin/retention');
  await call(owner, 'PUT /admin/retention', {
    body: { items_days: 365, archived_items_days: 90, attachments_days: 180, audit_days: 30 },
  });
  await call(owner, 'GET /me/export');
  await call(owner, 'GET /admin/export');

  const factories = new Factories(server.database.db);
  const charles = await factories.user({ email: 'charles@example.com', name: 'Charles Babbage' });
  await factories.member(orgId, charles.id, 'member');
  const user = { user_id: charles.id };
  await call(owner, 'GET /admin/users/{user_id}/export', { params: user });
  await call(owner, 'POST /admin/users/{user_id}/erase', { params: user });

  const dora = await factories.user({ email: 'dora@example.com', name: 'Dora Hartree' });
  await factories.member(orgId, dora.id, 'member');
  const doraSession = server.resource.as((await factories.session(dora.id, orgId)).token);
  await call(doraSession, 'POST /me/erase', { body: { confirm: 'dora@example.com' } });

  // Another organization, deleted by its Owner.
  const sandbox = await factories.account('owner');
  await call(server.resource.as(sandbox.token), 'POST /admin/org/delete', {
    body: { confirm: sandbox.org.slug },
  });
}
