import { parseArgs } from 'node:util';
import { describeVerdict, ExportError, fileSource, serverSource, verifyExport } from './audit';

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
