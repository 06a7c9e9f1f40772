import { simpleParser } from 'mailparser';
import type { ReceivedMail } from '../harness/smtp';

const decodeEntities = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** A received mail as a reader sees it: subject, both bodies, header lines, and the HTML's links. */
export async function readMail(mail: ReceivedMail) {
  const parsed = await simpleParser(mail.raw);
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  const links = [...html.matchAll(/<a href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].map((m) => ({
    url: decodeEntities(m[1] ?? ''),
    label: decodeEntities(m[2] ?? ''),
  }));
  const header = (name: string) =>
    parsed.headerLines
      .find((h) => h.key === name.toLowerCase())
      ?.line.replace(/^[^:]+:\s*/, '')
      .replace(/\r?\n\s+/g, ' ');
  return {
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html,
    header,
    links,
    /** The answer buttons (signed links to the confirmation page), by label. */
    button: (label: string) => {
      const link = links.find((l) => l.label === label && l.url.includes('/api/email/answer?'));
      if (!link) throw new Error(`no "${label}" button in ${JSON.stringify(links.map((l) => l.label))}`);
      return link.url;
    },
    answerLinks: links.filter((l) => l.url.includes('/api/email/answer?')),
  };
}
