import { spawnSync } from 'node:child_process';
import {
  createDecipheriv,
  createECDH,
  createHmac,
  createVerify,
  generateKeyPairSync,
  randomBytes,
} from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, buildConnector, getGlobalDispatcher, setGlobalDispatcher } from 'undici';

/** A delivery that reached a fake push service, decrypted or as sent. */
export type Pushed = { token: string; payload: Record<string, unknown>; headers: http.IncomingHttpHeaders };

/**
 * A hostile or broken endpoint: `hang` never answers; `endless` answers 201 and streams a body
 * that never ends (the bytes written are counted in `streamed`).
 */
export type Misbehaviour = 'hang' | 'endless';

/** How a fake push service answers one token: a status, or a list of statuses in turn. */
type Answers = Map<string, number[]>;
const nextStatus = (answers: Answers, token: string) => answers.get(token)?.shift() ?? 201;

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/**
 * A browser's push subscription for the fake service: its keys are real (P-256 and an auth
 * secret), so the fake decrypts what the server encrypted for it (RFC 8291, aes128gcm).
 */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, auth: randomBytes(16) };
}

function decrypt(body: Buffer, keys: ReturnType<typeof browserKeys>): Record<string, unknown> {
  const salt = body.subarray(0, 16);
  const idLength = body[20] ?? 0;
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const shared = keys.ecdh.computeSecret(senderKey);
  const info = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    keys.ecdh.getPublicKey(),
    senderKey,
    Buffer.from([1]),
  ]);
  const ikm = hmac(hmac(keys.auth, shared), info);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([
    decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
    decipher.final(),
  ]);
  const end = padded.lastIndexOf(2); // the last record's delimiter, then padding zeros
  return JSON.parse(padded.subarray(0, end).toString('utf8')) as Record<string, unknown>;
}

/**
 * A Web Push service on local HTTPS (self-signed for 127.0.0.1; this process trusts it through
 * https.globalAgent, as it would a public service's certificate): it checks the VAPID
 * authorization header's form and decrypts each message with the subscription's keys.
 */
export async function startFakeWebPush() {
  const dir = mkdtempSync(path.join(tmpdir(), 'beckon-push-tls-'));
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  const key = readFileSync(path.join(dir, 'key.pem'));
  const cert = readFileSync(path.join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });
  const previousCa = https.globalAgent.options.ca;
  https.globalAgent.options.ca = [cert];

  const subscriptions = new Map<string, ReturnType<typeof browserKeys>>();
  const answers: Answers = new Map();
  const misbehaviours = new Map<string, Misbehaviour>();
  const received: Pushed[] = [];
  /** Requests that reached each token, answered or not. */
  const requests = new Map<string, number>();
  const streamed = { bytes: 0 };
  const handler: http.RequestListener = (request, response) => {
    const token = (request.url ?? '').split('/').pop() ?? '';
    requests.set(token, (requests.get(token) ?? 0) + 1);
    const misbehaviour = misbehaviours.get(token);
    if (misbehaviour === 'hang') return;
    if (misbehaviour === 'endless') {
      response.writeHead(201);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const more = () => {
        while (!response.destroyed && response.write(chunk)) streamed.bytes += chunk.length;
        if (!response.destroyed) response.once('drain', more);
      };
      more();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const keys = subscriptions.get(token);
      const vapid = /^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/.test(request.headers.authorization ?? '');
      if (!keys || !vapid || request.headers['content-encoding'] !== 'aes128gcm') {
        response.writeHead(keys ? 403 : 404).end();
        return;
      }
      const status = nextStatus(answers, token);
      if (status < 300)
        received.push({ token, payload: decrypt(Buffer.concat(chunks), keys), headers: request.headers });
      response.writeHead(status).end();
    });
  };
  // Two servers, two origins: a misbehaving endpoint on one, well-behaved ones on the other.
  const servers = [https.createServer({ key, cert }, handler), https.createServer({ key, cert }, handler)];
  const sockets = new Set<{ destroy: () => void }>();
  const ports: number[] = [];
  for (const server of servers) {
    server.on('connection', (socket: net.Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push((server.address() as net.AddressInfo).port);
  }
  return {
    received,
    requests,
    streamed,
    /**
     * A subscription of a new browser, as the JSON string the dashboard registers; on the
     * second origin with `origin: 1`, misbehaving with `misbehave`.
     */
    subscribe(
      token: string,
      statuses: number[] = [],
      options: { origin?: 0 | 1; misbehave?: Misbehaviour } = {},
    ) {
      const keys = browserKeys();
      subscriptions.set(token, keys);
      answers.set(token, [...statuses]);
      if (options.misbehave) misbehaviours.set(token, options.misbehave);
      return JSON.stringify({
        endpoint: `https://127.0.0.1:${ports[options.origin ?? 0]}/push/${token}`,
        keys: {
          p256dh: keys.ecdh.getPublicKey().toString('base64url'),
          auth: keys.auth.toString('base64url'),
        },
      });
    },
    close: async () => {
      https.globalAgent.options.ca = previousCa;
      for (const socket of sockets) socket.destroy();
      for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const FCM_HOSTS = new Set(['fcm.googleapis.com', 'oauth2.googleapis.com']);

/**
 * The mobile push service (its HTTP v1 send API) and its token endpoint, faked at the HTTP
 * boundary: an undici dispatcher routes their hosts to a local server, so the server's own
 * fetches run. The token endpoint verifies the service account's signed JWT against its key.
 */
export async function startFakeMobilePush() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccount = JSON.stringify({
    type: 'service_account',
    project_id: 'beckon-test',
    client_email: 'push@beckon-test.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  const accessToken = `ya29.${randomBytes(12).toString('hex')}`;
  const answers: Answers = new Map();
  const received: Pushed[] = [];
  const tokenRequests: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const host = request.headers.host ?? '';
      if (host.startsWith('oauth2.googleapis.com') && request.url === '/token') {
        const assertion = new URLSearchParams(body).get('assertion') ?? '';
        const [header, claims, signature] = assertion.split('.');
        const valid = createVerify('RSA-SHA256')
          .update(`${header}.${claims}`)
          .verify(publicKey, Buffer.from(signature ?? '', 'base64url'));
        tokenRequests.push(valid ? 'valid' : 'invalid');
        response.writeHead(valid ? 200 : 400, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            valid ? { access_token: accessToken, expires_in: 3600 } : { error: 'invalid_grant' },
          ),
        );
        return;
      }
      const send = request.url === '/v1/projects/beckon-test/messages:send';
      if (!send || request.headers.authorization !== `Bearer ${accessToken}`) {
        response.writeHead(send ? 401 : 404).end();
        return;
      }
      const message = (JSON.parse(body) as { message: { token: string } & Record<string, unknown> }).message;
      const status = nextStatus(answers, message.token);
      response.writeHead(status === 201 ? 200 : status, { 'content-type': 'application/json' });
      if (status >= 300) {
        const code = status === 404 ? 'UNREGISTERED' : 'UNAVAILABLE';
        response.end(JSON.stringify({ error: { code: status, status: code } }));
        return;
      }
      received.push({ token: message.token, payload: message, headers: request.headers });
      response.end(
        JSON.stringify({ name: `projects/beckon-test/messages/${randomBytes(4).toString('hex')}` }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const previous = getGlobalDispatcher();
  const direct = buildConnector({});
  const agent = new Agent({
    connect: (options, callback) => {
      if (!FCM_HOSTS.has(options.hostname)) return direct(options, callback);
      // Plain TCP even for https: the fake speaks HTTP/1.1 without TLS.
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => callback(null, socket));
      socket.once('error', (error) => callback(error, null));
    },
  });
  setGlobalDispatcher(agent);
  return {
    serviceAccount,
    received,
    tokenRequests,
    /** How the service answers this device token: statuses in turn, then 200. */
    answer(token: string, statuses: number[]) {
      answers.set(token, [...statuses]);
    },
    close: async () => {
      setGlobalDispatcher(previous);
      await agent.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
