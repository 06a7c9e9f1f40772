import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';

export type ReceivedMail = { from: string; to: string[]; raw: string };

/**
 * A real SMTP server on loopback (no TLS, no auth) that keeps every message it accepts. The
 * recipients `refuse` names are refused with that reply code (e.g. 550: no such mailbox).
 */
export async function startSmtpServer(options: { refuse?: (address: string) => number | null } = {}) {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = options.refuse?.(address.address) ?? null;
      if (code === null) return callback();
      callback(Object.assign(new Error(`mailbox ${address.address} refused`), { responseCode: code }));
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    messages,
    /** The first message to `address`, waiting up to `timeoutMs` for it. */
    async waitForMail(to: string, timeoutMs = 10_000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = messages.find((m) => m.to.includes(to));
        if (mail) return mail;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The body of a simple text mail (decoded when it is quoted-printable). */
export function mailText(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const body = raw.slice(split + 4);
  // Only a quoted-printable body is decoded: in a 7bit one, "token=60…" is text, not an escape.
  if (!/^content-transfer-encoding:\s*quoted-printable/im.test(raw.slice(0, split))) return body;
  return body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
}
