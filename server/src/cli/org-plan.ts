// `pnpm org:plan <organization> <free|team|enterprise>`: puts an organization on a plan by hand,
// on a server without a payment provider (PAYMENT_SECRET_KEY unset), where nothing else moves it
// off Free. The organization is named by its slug or id; the change is an audit entry of the
// service (`billing.plan_set`). Runs on DATABASE_URL, or on the embedded database while the
// service is stopped (docs/operations.md, "Plans without a payment provider").
import { createSql, type Queryable } from '@beckon/db';
import { openDatabase } from '../database';
import { ConfigError, loadEnv } from '../env';
import { recordAudit } from '../modules/audit/audit.service';
import { Sequencer } from '../realtime/sequencer';

const USAGE = 'usage: pnpm org:plan <organization slug or id> <free|team|enterprise>';

/** A refusal for the person at the terminal: its message, exit code 1. */
class Refused extends Error {}

async function setPlan(tx: Queryable, organization: string, code: string) {
  const [org] = await tx<{ id: string; slug: string; is_personal: boolean }[]>`
    select id, slug, is_personal from organizations
     where slug = ${organization} or id::text = ${organization}`;
  if (!org) throw new Refused(`no organization with the slug or id ${organization}`);
  if (org.is_personal) throw new Refused(`${org.slug} is a personal workspace: it stays on Free`);
  const [plan] = await tx<{ id: string }[]>`select id from plans where code = ${code}`;
  if (!plan) throw new Refused(`no plan ${code}: free, team or enterprise`);
  const [before] = await tx<{ code: string }[]>`
    select p.code from subscriptions s join plans p on p.id = s.plan_id where s.org_id = ${org.id} for update of s`;
  await tx`update subscriptions set plan_id = ${plan.id}, status = 'active', cancel_at_period_end = false,
                  updated_at = now()
            where org_id = ${org.id}`;
  await recordAudit(tx, {
    orgId: org.id,
    action: 'billing.plan_set',
    actor: { type: 'system', id: null },
    data: { plan: code, before: before?.code ?? null, by: 'operator' },
  });
  return org;
}

async function main(organization: string, code: string) {
  const env = loadEnv();
  if (env.PAYMENT_SECRET_KEY)
    throw new Refused(
      "billing is configured (PAYMENT_SECRET_KEY): plans follow the organizations' subscriptions, changed in the payment provider's portal",
    );
  // The embedded database of a service still running is refused here, naming it.
  const database = await openDatabase(env).catch((error: Error) => {
    throw new Refused(error.message);
  });
  const sql = createSql(database.url, { max: 1, applicationName: 'beckon-org-plan' });
  try {
    const org = await sql.begin((tx) => setPlan(tx, organization, code));
    // The entry takes its place in the organization's audit chain now, as a request's would.
    await new Sequencer(sql).settle([org.id]);
    console.log(`${org.slug} is on ${code}`);
  } finally {
    await sql.end();
    await database.close();
  }
}

const [organization, code, ...rest] = process.argv.slice(2);
if (!organization || !code || rest.length > 0) {
  console.error(USAGE);
  process.exit(2);
}
await main(organization, code).catch((error: unknown) => {
  if (!(error instanceof Refused || error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
});
