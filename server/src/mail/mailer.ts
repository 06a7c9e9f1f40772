import nodemailer from 'nodemailer';
import type { Env } from '../env';
import type { Logger } from '../log';
import { inClientSpan } from '../tracing/tracing';

export type Mail = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header fields (List-Unsubscribe …), written as given. */
  headers?: Record<string, string>;
};

/** How one SMTP delivery went: the server's reply code, and whether another attempt could help. */
export type MailResult =
  | { ok: true; code: number | null; error: null }
  | { ok: false; code: number | null; error: string; final: boolean };

export type Mailer = {
  /** False when SMTP_HOST is unset: development mode, links are logged and returned instead. */
  readonly configured: boolean;
  /** Sends one message; failures are logged, never thrown (answers must not depend on mail). */
  send(mail: Mail): Promise<boolean>;
  /** Sends one message and says how it went (for deliveries that record and retry). */
  deliver(mail: Mail): Promise<MailResult>;
  close(): void;
};

const replyCode = (text: unknown): number | null => {
  const match = typeof text === 'string' ? /^(\d{3})\b/.exec(text) : null;
  return match ? Number(match[1]) : null;
};

/** Mail over SMTP with nodemailer (SMTP_*); port 465 speaks TLS at once, others use STARTTLS. */
export function createMailer(env: Env, log: Logger): Mailer {
  if (!env.SMTP_HOST) {
    const notConfigured: MailResult = {
      ok: false,
      code: null,
      error: 'mail is not configured (SMTP_HOST)',
      final: true,
    };
    return {
      configured: false,
      send: async () => false,
      deliver: async () => notConfigured,
      close: () => {},
    };
  }
  const transport = nodemailer.createTransport({
    host: env.SMTP_HOST,
    port: env.SMTP_PORT,
    secure: env.SMTP_PORT === 465,
    ...(env.SMTP_USER ? { auth: { user: env.SMTP_USER, pass: env.SMTP_PASS ?? '' } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  const deliver = async (mail: Mail): Promise<MailResult> => {
    try {
      // When tracing: a span of the job sending it, and its trace context in the message's header.
      const info = await inClientSpan('smtp send', { 'server.address': env.SMTP_HOST ?? '' }, (trace) =>
        transport.sendMail({
          from: env.SMTP_FROM,
          ...mail,
          ...(trace ? { headers: { ...mail.headers, ...trace } } : {}),
        }),
      );
      return { ok: true, code: replyCode(info.response), error: null };
    } catch (err) {
      const { responseCode, message } = err as { responseCode?: number; message?: string };
      const code = typeof responseCode === 'number' ? responseCode : null;
      // A 5xx reply (no such mailbox, refused) will not change; a 4xx or a lost connection may.
      return {
        ok: false,
        code,
        error: String(message ?? err).slice(0, 500),
        final: code !== null && code >= 500,
      };
    }
  };
  return {
    configured: true,
    deliver,
    async send(mail) {
      const result = await deliver(mail);
      if (!result.ok) log.error({ err: result.error, to: mail.to, subject: mail.subject }, 'mail not sent');
      return result.ok;
    },
    close: () => transport.close(),
  };
}
