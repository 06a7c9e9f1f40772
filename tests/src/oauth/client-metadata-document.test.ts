import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { Browser } from './browser';
import { authorize, startOAuthServer, ThirdPartyClient } from './flow';

let server: TestServer;
let issuer: string;
let documents: https.Server;
let origin: string;
let fetched = 0;
/** Node 22.15 and later: the default CA list of this process can be extended at run time. */
const defaults = tls as typeof tls & {
  getCACertificates?: (type: 'default') => string[];
  setDefaultCACertificates?: (certs: string[]) => void;
};
const canTrust = typeof defaults.setDefaultCACertificates === 'function';
const previousCa = defaults.getCACertificates?.('default') ?? [];
const REDIRECT = 'http://127.0.0.1:4999/callback';

/** Metadata documents on local HTTPS (self-signed for 127.0.0.1, trusted by this process). */
function startDocumentServer() {
  const dir = mkdtempSync(path.join(tmpdir(), 'beckon-cimd-tls-'));
  const made = spawnSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  const key = readFileSync(path.join(dir, 'key.pem'));
  const cert = readFileSync(path.join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });
  defaults.setDefaultCACertificates?.([...previousCa, cert.toString()]);
  return https.createServer({ key, cert }, (request, response) => {
    fetched++;
    const self = `${origin}${request.url}`;
    const document = {
      client_id: request.url === '/wrong-id.json' ? `${origin}/someone-else.json` : self,
      client_name: 'Metadata Agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    response.end(JSON.stringify(document));
  });
}

beforeAll(async () => {
  if (!canTrust) return;
  server = await startOAuthServer();
  issuer = server.authDeps.env.ISSUER_URL;
  documents = startDocumentServer();
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if (canTrust) defaults.setDefaultCACertificates?.(previousCa);
  if (documents) await new Promise((resolve) => documents.close(resolve));
  await server?.close();
});

describe.skipIf(!canTrust)('Client ID Metadata Documents', () => {
  it('are advertised beside dynamic registration, with the iss parameter', async () => {
    const as = await ThirdPartyClient.discover(issuer);
    expect(as).toMatchObject({
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${issuer}/oauth/register`,
    });
  });

  it('a client known by its document URL is authorized without registering; oauth4webapi checks iss', async () => {
    const client = await ThirdPartyClient.fromMetadataDocument(issuer, `${origin}/agent.json`, REDIRECT);
    const browser = new Browser();
    const { location, verifier, state } = await authorize(browser, client, 'cimd@example.test');
    expect(new URL(location).searchParams.get('iss')).toBe(issuer);
    const tokens = await client.exchange(client.callback(location, state), verifier);
    expect(tokens.access_token).toEqual(expect.any(String));
    expect((await server.resource.as(tokens.access_token).get('/api/items')).status).toBe(200);
    // Cached: a second authorization does not fetch the document again.
    const before = fetched;
    await authorize(browser, client, 'cimd@example.test');
    expect(fetched).toBe(before);
  });

  it('refuses a document that names another client_id', async () => {
    const client = await ThirdPartyClient.fromMetadataDocument(issuer, `${origin}/wrong-id.json`, REDIRECT);
    const browser = new Browser();
    await expect(authorize(browser, client, 'cimd@example.test')).rejects.toThrow(/invalid_client/);
  });
});

describe.skipIf(!canTrust)(
  'Client ID Metadata Documents on a service that refuses private destinations',
  () => {
    it('does not fetch a document from a loopback address, as callbacks would not', async () => {
      const strict = await startOAuthServer({ ALLOW_PRIVATE_DESTINATIONS: 'false' });
      try {
        const strictIssuer = strict.authDeps.env.ISSUER_URL;
        const client = await ThirdPartyClient.fromMetadataDocument(
          strictIssuer,
          `${origin}/agent.json`,
          REDIRECT,
        );
        const before = fetched;
        await expect(authorize(new Browser(), client, 'cimd@example.test')).rejects.toThrow(/invalid_client/);
        expect(fetched).toBe(before);
      } finally {
        await strict.close();
      }
    });
  },
);
