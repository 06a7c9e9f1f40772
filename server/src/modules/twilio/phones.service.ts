import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { PhoneView, PutPhoneInput } from '@beckon/contracts/twilio/twilio.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { orgTwilio } from './connection.service';
import { address, requireTwilio, type TwilioConfig } from './twilio-config';

/** A verification code works this long, and for this many tries. */
const CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
/** A new code is texted at most this often per person: a texting service is no one's to pump. */
const RESEND_AFTER_MS = 30 * 1000;

type PhoneRow = {
  phone: string;
  channel: 'sms' | 'whatsapp';
  verified_at: Date | null;
  opted_out_at: Date | null;
  code_hash: string | null;
  code_expires_at: Date | null;
  code_attempts: number;
};

const phoneView = (row: PhoneRow): PhoneView => ({
  phone: row.phone,
  channel: row.channel,
  verified: row.verified_at !== null,
  opted_out: row.opted_out_at !== null,
});

/** The code's hash names the person and the number, so a code is worth nothing for another. */
const codeHash = (config: TwilioConfig, identity: Identity, phone: string, code: string) =>
  createHmac('sha256', config.codeKey)
    .update(`${identity.orgId}:${identity.userId}:${phone}:${code}`)
    .digest('base64url');

async function findPhone(deps: Deps, identity: Identity) {
  const [row] = await deps.sql<PhoneRow[]>`
    select phone, channel, verified_at, opted_out_at, code_hash, code_expires_at, code_attempts
      from phone_numbers where org_id = ${identity.orgId} and user_id = ${identity.userId}`;
  return row ?? null;
}

export async function getPhone(deps: Deps, identity: Identity) {
  requireTwilio(deps);
  const row = await findPhone(deps, identity);
  return { phone: row ? phoneView(row) : null };
}

/**
 * Sets the person's number (unverified) and texts it a 6-digit code from the organization's
 * sender for the channel. Another member's number is refused: a reply must name one person.
 */
export async function putPhone(deps: Deps, identity: Identity, input: PutPhoneInput) {
  const config = requireTwilio(deps);
  const account = await orgTwilio(deps, config, identity.orgId);
  if (!account) throw AppError.conflict('twilio_not_connected', 'no Twilio account is connected');
  const from = input.channel === 'sms' ? account.connection.sms_from : account.connection.whatsapp_from;
  if (!from) throw AppError.invalid({ channel: `the organization sends no ${input.channel} messages` });
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const row = await deps.sql.begin(async (tx) => {
    const [other] = await tx`
      select 1 from phone_numbers
       where org_id = ${identity.orgId} and phone = ${input.phone} and user_id <> ${identity.userId}`;
    if (other) throw AppError.conflict('phone_taken', 'another member uses this phone number');
    const [pending] = await tx<{ code_expires_at: Date | null }[]>`
      select code_expires_at from phone_numbers
       where org_id = ${identity.orgId} and user_id = ${identity.userId} for update`;
    const sentAt = (pending?.code_expires_at?.getTime() ?? 0) - CODE_TTL_MS;
    if (Date.now() - sentAt < RESEND_AFTER_MS)
      throw AppError.rateLimited(Math.ceil((sentAt + RESEND_AFTER_MS - Date.now()) / 1000));
    const [saved] = await tx<PhoneRow[]>`
      insert into phone_numbers (org_id, user_id, phone, channel, code_hash, code_expires_at)
      values (${identity.orgId}, ${identity.userId}, ${input.phone}, ${input.channel},
              ${codeHash(config, identity, input.phone, code)}, ${new Date(Date.now() + CODE_TTL_MS)})
      on conflict (org_id, user_id) do update set phone = excluded.phone, channel = excluded.channel,
        verified_at = null, opted_out_at = null, code_hash = excluded.code_hash,
        code_expires_at = excluded.code_expires_at, code_attempts = 0, updated_at = now()
      returning phone, channel, verified_at, opted_out_at, code_hash, code_expires_at, code_attempts`;
    await recordOrgChange(tx, identity, 'phone.set', { channel: input.channel });
    return saved as PhoneRow;
  });
  try {
    await account.client.messages.create({
      from: address(input.channel, from),
      to: address(input.channel, input.phone),
      body: `Your Beckon verification code is ${code}. It expires in 10 minutes.`,
    });
  } catch (error) {
    // Twilio's refusal of the number (invalid, unreachable, not on WhatsApp) is the person's to fix.
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500)
      throw AppError.invalid({ phone: `Twilio could not send to this number: ${(error as Error).message}` });
    throw error;
  }
  return { phone: phoneView(row) };
}

/** Checks the code: right (and in time) verifies the number; five wrong tries spend it. */
export async function verifyPhone(deps: Deps, identity: Identity, code: string) {
  const config = requireTwilio(deps);
  // The verdict leaves the transaction as a value: a wrong try must commit its count.
  const verdict = await deps.sql.begin(async (tx) => {
    const [row] = await tx<PhoneRow[]>`
      select phone, channel, verified_at, opted_out_at, code_hash, code_expires_at, code_attempts
        from phone_numbers where org_id = ${identity.orgId} and user_id = ${identity.userId} for update`;
    if (!row) return 'none' as const;
    if (row.verified_at) return row;
    const spent =
      !row.code_hash ||
      !row.code_expires_at ||
      row.code_expires_at.getTime() <= Date.now() ||
      row.code_attempts >= MAX_CODE_ATTEMPTS;
    if (spent) return 'spent' as const;
    const expected = Buffer.from(row.code_hash ?? '');
    const given = Buffer.from(codeHash(config, identity, row.phone, code));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      await tx`update phone_numbers set code_attempts = code_attempts + 1
                where org_id = ${identity.orgId} and user_id = ${identity.userId}`;
      return 'wrong' as const;
    }
    const [verified] = await tx<PhoneRow[]>`
      update phone_numbers set verified_at = now(), code_hash = null, code_expires_at = null, updated_at = now()
       where org_id = ${identity.orgId} and user_id = ${identity.userId}
      returning phone, channel, verified_at, opted_out_at, code_hash, code_expires_at, code_attempts`;
    await recordOrgChange(tx, identity, 'phone.verify', { channel: row.channel });
    return verified as PhoneRow;
  });
  if (verdict === 'none') throw AppError.notFound();
  if (verdict === 'spent')
    throw AppError.gone('phone_code_expired', 'the code expired or was tried too often');
  if (verdict === 'wrong') throw AppError.invalid({ code: 'not the code that was sent' });
  return { phone: phoneView(verdict) };
}

export async function deletePhone(deps: Deps, identity: Identity) {
  requireTwilio(deps);
  await deps.sql.begin(async (tx) => {
    const gone = await tx`
      delete from phone_numbers where org_id = ${identity.orgId} and user_id = ${identity.userId} returning 1`;
    if (gone.length > 0) await recordOrgChange(tx, identity, 'phone.delete', {});
  });
  return { phone: null };
}
