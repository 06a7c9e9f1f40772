import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher, request } from 'undici';
import { currentRequestId } from '../request-context';

export type OutboundResult = {
  /** True only for a 2xx response whose body was read (or capped) within the timeout. */
  ok: boolean;
  /** The response status, when one arrived (even if reading its body then failed). */
  status: number | null;
  /** From `Retry-After` on a 429 or 503, else null. */
  retryAfterSeconds: number | null;
  /** A short reason when no usable response arrived; null otherwise. */
  error: string | null;
  durationMs: number;
};

export type OutboundOptions = {
  /** Self-hosters may point webhooks at their own network; the hosted service must not. */
  allowPrivate: boolean;
  /** For the whole exchange: connection, headers and body. */
  timeoutMs?: number;
  /** Aborts the exchange (the worker is stopping); the result's error is then `aborted`. */
  signal?: AbortSignal;
};

const DEFAULT_TIMEOUT_MS = 15_000;
// Receivers' answers are ignored, so a large or endless body only costs us memory and time.
const MAX_RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = 'Beckon-Webhooks/1.0';
const MAX_ERROR_LENGTH = 200;

const forbiddenRanges = buildForbiddenRanges();

function buildForbiddenRanges(): BlockList {
  const list = new BlockList();
  const ipv4: Array<[string, number]> = [
    ['0.0.0.0', 8], // "this network": 0.0.0.0 reaches the local host on Linux
    ['10.0.0.0', 8],
    ['100.64.0.0', 10], // CGNAT: the provider's internal network
    ['127.0.0.0', 8],
    ['169.254.0.0', 16], // link-local, home of the cloud metadata service 169.254.169.254
    ['172.16.0.0', 12],
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.168.0.0', 16],
    ['198.18.0.0', 15], // benchmarking networks
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, and the broadcast address
  ];
  const ipv6: Array<[string, number]> = [
    ['::', 96], // unspecified, loopback, and the deprecated IPv4-compatible form (::a.b.c.d)
    ['64:ff9b::', 96], // NAT64: reaches IPv4 addresses, internal ones included
    ['64:ff9b:1::', 48], // local-use NAT64
    ['2002::', 16], // 6to4: embeds an IPv4 address
    ['fc00::', 7], // unique local (AWS serves metadata at fd00:ec2::254)
    ['fe80::', 10], // link-local
    ['ff00::', 8], // multicast
  ];
  for (const [network, prefix] of ipv4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, 'ipv6');
  // No entry is needed for IPv4-mapped IPv6 (::ffff:a.b.c.d): BlockList matches those against the
  // IPv4 ranges itself.
  return list;
}

/** Whether a webhook must not be sent to this IP address (anything that is not an IP is refused). */
export function isForbiddenAddress(ip: string): boolean {
  // BlockList does not understand zone ids (fe80::1%eth0) and would call such an address allowed.
  const address = ip.split('%', 1)[0] ?? '';
  const family = isIP(address);
  if (family === 0) return true;
  return forbiddenRanges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Resolves the host when the connection is made and connects to the address that was checked, so a
 * DNS answer that changes between a check and the connection (DNS rebinding) cannot slip through.
 * Every address is checked, not just the one used: a name that mixes public and private answers is
 * a probe. Node's own `lookup` hook is not enough, as it is skipped for IP-literal hosts.
 */
function publicOnlyConnector(): buildConnector.connector {
  const connect = buildConnector({});
  return (options, callback) => {
    resolvePublicAddress(options.hostname).then(
      (address) => {
        try {
          // `host` keeps the original name, from which the TLS servername (SNI, certificate check) is taken.
          connect({ ...options, hostname: address }, callback);
        } catch (error) {
          callback(toError(error), null);
        }
      },
      (error: unknown) => callback(toError(error), null),
    );
  };
}

export async function resolvePublicAddress(hostname: string): Promise<string> {
  const addresses = await lookup(hostname, { all: true });
  const forbidden = addresses.find(({ address }) => isForbiddenAddress(address));
  // (describeError leaves the address out of what a delivery attempt stores.)
  if (forbidden) throw new Error(`destination not allowed: ${forbidden.address}`);
  const first = addresses[0];
  if (!first) throw new Error(`no address for ${hostname}`);
  return first.address;
}

// One agent per policy, so a connection opened under allowPrivate is never reused without it.
const agents = {
  publicOnly: new Agent({ connect: publicOnlyConnector() }),
  any: new Agent(),
};

/** The dispatcher of requests to user-supplied URLs (undici's fetch or request). */
export const outboundDispatcher = (allowPrivate: boolean): Dispatcher =>
  allowPrivate ? agents.any : agents.publicOnly;

/**
 * POSTs a JSON body to a user-supplied URL and reports what happened. Never throws, never follows
 * redirects (a 3xx is a non-ok result), and refuses private destinations unless allowed.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: OutboundOptions,
): Promise<OutboundResult> {
  const started = performance.now();
  const target = parseTarget(url);
  if ('error' in target) return failure(target.error, null, started);

  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  // A listener of the caller's signal, not AbortSignal.any: that one costs a composite signal
  // and weak references for every request.
  options.signal?.addEventListener('abort', abort, { once: true });
  if (options.signal?.aborted) abort();
  let status: number | null = null;
  try {
    const response = await request(target.url, {
      method: 'POST',
      dispatcher: options.allowPrivate ? agents.any : agents.publicOnly,
      headers: outgoingHeaders(withRequestIdHeader(headers)),
      body,
      signal: controller.signal,
    });
    status = response.statusCode;
    // Read and dropped up to the limit; past it the stream is destroyed, which closes the
    // connection instead of draining it. Rejects when the request is aborted meanwhile.
    await response.body.dump({ limit: MAX_RESPONSE_BYTES, signal: controller.signal });
    return {
      ok: status >= 200 && status < 300,
      status,
      retryAfterSeconds:
        status === 429 || status === 503 ? parseRetryAfter(response.headers['retry-after']) : null,
      error: null,
      durationMs: elapsedMs(started),
    };
  } catch (error) {
    const reason = options.signal?.aborted ? 'aborted' : controller.signal.aborted ? 'timeout' : null;
    return failure(reason ?? describeError(error), status, started);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  }
}

function parseTarget(url: string): { url: URL } | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: 'invalid URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { error: 'unsupported URL scheme' };
  return { url: parsed };
}

/** The id of the request the delivery follows (request-context.ts), for receivers' logs. */
function withRequestIdHeader(headers: Record<string, string>): Record<string, string> {
  const requestId = currentRequestId();
  return requestId ? { 'x-request-id': requestId, ...headers } : headers;
}

function outgoingHeaders(extra: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = {};
  // Lower-cased so a caller's `Content-Type` replaces ours rather than being sent twice.
  for (const [name, value] of Object.entries(extra)) merged[name.toLowerCase()] = value;
  // Set last: the body is always JSON, and receivers allow-list us by user agent.
  merged['content-type'] = 'application/json';
  merged['user-agent'] = USER_AGENT;
  return merged;
}

/** `Retry-After` is either delta-seconds or an HTTP date; anything else is ignored. */
function parseRetryAfter(header: string | string[] | undefined): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  // HTTP dates start with a day name; this keeps V8's lenient Date.parse from reading "1.5" as a date.
  if (!/^[a-z]/i.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export const REFUSED_DESTINATION = 'destination not allowed: private or reserved address';

/** What the stored attempt says about system errors, by code (their messages name addresses). */
const ERROR_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
};

const IP_LITERALS =
  /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|\[?\b[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}\b\]?(?::\d+)?/gi;

/**
 * The error as stored with the attempt (admins see it): a system error by its code, anything
 * else by its message with IP addresses removed, so it never reveals what a name resolved to.
 */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed';
  // An AggregateError from trying several addresses has an empty message but a useful code.
  const code = 'code' in error && typeof error.code === 'string' ? error.code : null;
  if (error.message.startsWith('destination not allowed')) return REFUSED_DESTINATION;
  if (code) return `${ERROR_CODES[code] ?? 'connection failed'} (${code})`;
  return (error.message || error.name).replace(IP_LITERALS, '[address]').slice(0, MAX_ERROR_LENGTH);
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function failure(error: string, status: number | null, started: number): OutboundResult {
  return { ok: false, status, retryAfterSeconds: null, error, durationMs: elapsedMs(started) };
}

function elapsedMs(started: number): number {
  return Math.round(performance.now() - started);
}
