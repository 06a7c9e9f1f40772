import nodemailer from 'nodemailer';
import type { Env } from '../env';
import type { Logger } from '../log';

export type Mail = { to: string; subject: string; text: string; html?: string };

export type Mailer = {
  /** False when SMTP_HOST is unset: development mode, links are logged and returned instead. */
  readonly configured: boolean;
  /** Sends one message; failures are logged, never thrown (answers must not depend on mail). */
  send(mail: Mail): Promise<boolean>;
  close(): void;
};

/** Mail over SMTP with nodemailer (SMTP_*); port 465 speaks TLS at once, others use STARTTLS. */
export function createMailer(env: Env, log: Logger): Mailer {
  if (!env.SMTP_HOST) {
    return { configured: false, send: async () => false, close: () => {} };
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
  return {
    configured: true,
    async send(mail) {
      try {
        await transport.sendMail({ from: env.SMTP_FROM, ...mail });
        return true;
      } catch (err) {
        log.error({ err, to: mail.to, subject: mail.subject }, 'mail not sent');
        return false;
      }
    },
    close: () => transport.close(),
  };
}
