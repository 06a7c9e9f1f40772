import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { unbindBrowser } from './browser-binding';
import { completeInstall } from './connection.service';
import { handleInteraction, type InteractionPayload } from './interactions';
import { completeLink, isLinkState } from './links.service';
import { verifySlackSignature } from './request-signature';
import { requireSlack } from './slack-config';

/** Slack's interaction payloads are small; the signature covers the exact bytes. */
const MAX_INTERACTION_BYTES = 256 * 1024;

const refused = (reason: string) => AppError.of('invalid_signature', reason);

/**
 * Slack's two public routes (503 without Slack configuration):
 * - POST /webhooks/slack/interactions: button clicks and modal submissions, form-encoded
 *   `payload=<json>`, verified with the signing secret and the replay window (401 otherwise),
 *   then answered as the linked Beckon member (interactions.ts). Our own route rather than
 *   Bolt's receiver: the same Fastify app, error shapes and logs as every other route.
 * - GET /webhooks/slack/oauth: the end of the install, or of a person's Sign in with Slack that
 *   links their Slack account, back from Slack; it redirects the browser to the dashboard's Slack
 *   settings (or link page) with the outcome, and ends the flow's browser binding.
 */
export function registerSlackWebhooks(app: FastifyInstance, deps: Deps): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: MAX_INTERACTION_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post('/webhooks/slack/interactions', async (request, reply) => {
      const config = requireSlack(deps);
      const raw = typeof request.body === 'string' ? request.body : '';
      const verdict = verifySlackSignature(
        config.signingSecret,
        {
          timestamp: request.headers['x-slack-request-timestamp'],
          signature: request.headers['x-slack-signature'],
        },
        raw,
      );
      if (verdict === 'stale') throw refused('request timestamp outside the replay window');
      if (verdict !== 'ok') throw refused('invalid signature');
      let payload: InteractionPayload;
      try {
        payload = JSON.parse(new URLSearchParams(raw).get('payload') ?? '') as InteractionPayload;
      } catch {
        throw AppError.invalid({ payload: 'must be the JSON of an interaction' });
      }
      const answer = await handleInteraction(deps, config, payload);
      if (!answer) return reply.code(200).send();
      return answer;
    });
  });
  app.get('/webhooks/slack/oauth', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const back = { code: query.code, state: query.state, error: query.error };
    // One redirect URL for both of Slack's flows: the signed state says which one came back.
    const flow = query.state && isLinkState(deps, query.state) ? 'link' : 'install';
    const cookies = request.headers.cookie;
    const target =
      flow === 'link' ? await completeLink(deps, back, cookies) : await completeInstall(deps, back, cookies);
    return reply.header('set-cookie', unbindBrowser(deps.env, flow)).redirect(target, 302);
  });
}
