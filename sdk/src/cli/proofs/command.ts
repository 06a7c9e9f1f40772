import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { describeVerdict, ExportError, fileSource, serverSource, verifyExport } from './audit';
import { type ReceiptClaims, ReceiptError, verifyReceipt } from './receipt';

/** The text of `beckon audit --help`. */
export const AUDIT_USAGE = `Usage: beckon audit verify [--file audit.jsonl] [--url URL] [--token TOKEN] [--json]

Checks the organization's audit chain: every entry's hash covers its content and the entry before
it. Without --file it streams GET /api/audit/export from BECKON_URL (token: BECKON_TOKEN, with
audit.read) and checks it here, not trusting the server's own verdict; with --file it checks a
saved export offline. Prints the first broken link. Exit codes: 0 valid, 1 error, 6 broken.
`;

type Io = { out: (text: string) => void; err: (text: string) => void };
const stdio: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Exit code of a chain that does not hold (distinct from an error reaching the server). */
export const EXIT_BROKEN = 6;

/** ", verified by passkey at …" when the receipt says how the person last proved presence. */
const verifiedBy = (claims: ReceiptClaims) =>
  claims.amr && claims.auth_time
    ? `, verified by ${claims.amr.join('+')} at ${new Date(claims.auth_time * 1000).toISOString()}`
    : '';

/** `beckon audit ...`: the exit code. */
export async function auditCommand(argv: string[], env: Record<string, string | undefined>, io = stdio) {
  const [, sub, ...rest] = argv;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        file: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help || sub === undefined || sub === '--help' || sub === '-h') {
      io.out(AUDIT_USAGE);
      return 0;
    }
    if (sub !== 'verify' || positionals.length)
      throw new ExportError(`unknown: beckon audit ${[sub, ...positionals].join(' ')}`);
    const source = values.file
      ? fileSource(values.file)
      : await serverSource(
          required(values.url ?? env.BECKON_URL, 'BECKON_URL or --url'),
          required(values.token ?? env.BECKON_TOKEN, 'BECKON_TOKEN or --token'),
        );
    const verdict = await verifyExport(source);
    io.out(values.json ? `${JSON.stringify(verdict, null, 2)}\n` : describeVerdict(verdict));
    return verdict.valid ? 0 : EXIT_BROKEN;
  } catch (error) {
    io.err(`beckon audit: ${(error as Error).message}\n${error instanceof ExportError ? '' : AUDIT_USAGE}`);
    return 1;
  }
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new ExportError(`no ${what}`);
  return value;
}

/** The text of `beckon verify --help`. */
export const VERIFY_USAGE = `Usage: beckon verify <receipt.jws | -> [--jwks URL|FILE] [--url URL] [--json]

Checks a decision receipt offline: its Ed25519 signature against the organization's published
keys (--jwks, else BECKON_URL/.well-known/jwks.json?org_id=<the receipt's organization>), its type
and its expiry. Keys that cannot be read are a refusal, never a pass. Exit codes: 0 valid,
1 error or keys unavailable, 6 invalid signature, 7 valid but expired.
`;

/** \`beckon verify <receipt>\`: the exit code. */
export async function verifyCommand(argv: string[], env: Record<string, string | undefined>, io = stdio) {
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(1),
      allowPositionals: true,
      options: {
        jwks: { type: 'string' },
        url: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help || positionals.length !== 1) {
      (values.help ? io.out : io.err)(VERIFY_USAGE);
      return values.help ? 0 : 1;
    }
    const file = positionals[0] as string;
    const jws = file === '-' ? await readStdin() : await readFile(file, 'utf8');
    const base = values.url ?? env.BECKON_URL;
    const keysFrom = (orgId: string) => {
      if (values.jwks) return values.jwks;
      if (!base) throw new ReceiptError('no keys: pass --jwks or set BECKON_URL');
      return `${base.replace(/\/+$/, '')}/.well-known/jwks.json?org_id=${orgId}`;
    };
    let result: Awaited<ReturnType<typeof verifyReceipt>>;
    try {
      result = await verifyReceipt(jws, keysFrom);
    } catch (error) {
      if (error instanceof ReceiptError && /signature does not verify|no published key/.test(error.message)) {
        io.out(
          values.json
            ? `${JSON.stringify({ valid: false, reason: error.message })}\n`
            : `receipt INVALID: ${error.message}\n`,
        );
        return EXIT_BROKEN;
      }
      throw error;
    }
    const { claims, kid, expired } = result;
    if (values.json) io.out(`${JSON.stringify({ valid: !expired, expired, kid, claims }, null, 2)}\n`);
    else {
      const who = claims.decided_by.id
        ? `${claims.decided_by.type} ${claims.decided_by.id}`
        : claims.decided_by.type;
      io.out(
        `receipt ${expired ? 'signature valid but EXPIRED' : 'valid'}: item ${claims.item_id} ${claims.outcome} by ${who} ` +
          `(${claims.auth_method}${claims.answered_via ? `, via ${claims.answered_via}` : ''}${verifiedBy(claims)}) at ${claims.decided_at}; ` +
          `action ${claims.action_digest ?? 'none bound'}; key ${kid}\n`,
      );
    }
    return expired ? EXIT_EXPIRED : 0;
  } catch (error) {
    io.err(`beckon verify: ${(error as Error).message}\n`);
    return 1;
  }
}

/** Exit code of a receipt whose signature holds but whose time is up. */
export const EXIT_EXPIRED = 7;

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
