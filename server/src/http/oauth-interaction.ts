import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { errors, type InteractionResults } from 'oidc-provider';
import { z } from 'zod';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { enabledProviders } from '../modules/accounts/external/providers';
import { devLogin, requestMagicLink, verifyMagicLink } from '../modules/accounts/magic-link.service';
import { recordAudit } from '../modules/audit/audit.service';
import { accountIdOf, describeAccount, parseAccountId } from '../oauth/account';
import type { BrowserSession, BrowserSessions } from '../oauth/browser-session';
import {
  consentPage,
  type ExternalProviderLink,
  noticePage,
  PAGE_SECURITY_HEADERS,
  pageSecurityHeaders,
  type SignInPage,
  signInPage,
  verifyPage,
} from '../oauth/pages';
import { interactionPath } from '../oauth/provider';
import { ourScopes } from '../oauth/scopes';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
type Params = { uid: string };

const ZEmail = z.object({ email: z.email().max(320) });
const ZToken = z.object({ token: z.string().min(1).max(200) });
const ZDecision = z.object({ decision: z.enum(['allow', 'deny']) });

/** Forms here are a field or two. */
const FORM_LIMIT = 16 * 1024;

const PROVIDER_NAMES: Record<string, string> = {
  idp_a: 'your code-hosting account (idp_a)',
  idp_b: 'your web account (idp_b)',
  idp_c: 'your device-vendor account (idp_c)',
};

const EXPIRED = noticePage(
  'This sign-in request has ended',
  'It expired, was already completed, or was started in another browser. Go back to the application and connect again.',
);
const SIGNED_OUT = noticePage(
  'You are no longer signed in',
  'Your Beckon sign-in ended during this request. Go back to the application and connect again.',
);

/**
 * The pages behind /oauth/authorize (oidc-provider's interactions): sign-in when the browser has
 * no session of ours, then consent. Every step needs the interaction cookie oidc-provider set
 * for this browser (SameSite=Lax, so another site cannot post these forms with it).
 */
export async function registerInteractions(
  app: FastifyInstance,
  deps: Deps,
  provider: Provider,
  sessions: BrowserSessions,
): Promise<void> {
  const providerNames = [...enabledProviders(deps.env, deps.clock).keys()];
  /** A page, its forms allowed to lead on to the redirect URI of `interaction` (pages.ts). */
  const html = (reply: FastifyReply, body: string, status = 200, interaction?: Interaction | null) =>
    reply
      .code(status)
      .headers(interaction ? pageSecurityHeaders(interaction.params.redirect_uri) : PAGE_SECURITY_HEADERS)
      .type('text/html; charset=utf-8')
      .send(body);

  /** The interaction of this browser named by the path, or null when there is none. */
  const interactionOf = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    try {
      const interaction = await provider.interactionDetails(request.raw, reply.raw);
      return interaction.uid === request.params.uid ? interaction : null;
    } catch (error) {
      if (error instanceof errors.SessionNotFound) return null;
      throw error;
    }
  };

  const finish = async (
    request: FastifyRequest,
    reply: FastifyReply,
    result: InteractionResults,
    merge = true,
  ) => {
    const returnTo = await provider.interactionResult(request.raw, reply.raw, result, {
      mergeWithLastSubmission: merge,
    });
    return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
  };

  const clientNameOf = async (interaction: Interaction) => {
    const clientId = String(interaction.params.client_id);
    const client = await provider.Client.find(clientId);
    return client?.clientName ?? clientId;
  };

  const signIn = async (
    reply: FastifyReply,
    interaction: Interaction,
    extra: Pick<SignInPage, 'sent' | 'error'> = {},
    status = 200,
  ) => {
    const back = encodeURIComponent(interactionPath(interaction.uid));
    const links: ExternalProviderLink[] = providerNames.map((idp) => ({
      name: PROVIDER_NAMES[idp] ?? idp,
      href: `/auth/oauth/${idp}?return_to=${back}`,
    }));
    const page = signInPage({
      uid: interaction.uid,
      clientName: await clientNameOf(interaction),
      devLogin: deps.env.DEV_LOGIN_ENABLED,
      providers: links,
      ...extra,
    });
    return html(reply, page, status, interaction);
  };

  /** The browser session, when it is the one the interaction signed in with. */
  const sameSession = async (request: FastifyRequest, interaction: Interaction) => {
    const session = await sessions.fromCookieHeader(request.headers.cookie, deps.clock());
    const signedIn = interaction.session?.accountId;
    return session && signedIn === accountIdOf(session) ? session : null;
  };

  /** After a sign-in: the browser keeps the new session, and the flow goes on. */
  const signedIn = async (reply: FastifyReply, uid: string, sessionToken: string) => {
    const cookie = await sessions.cookieForToken(sessionToken, deps.clock());
    return reply
      .header('set-cookie', cookie)
      .header('cache-control', 'no-store')
      .redirect(interactionPath(uid), 303);
  };

  await app.register(async (forms) => {
    forms.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    forms.get<{ Params: Params }>('/oauth/interaction/:uid', async (request, reply) => {
      const interaction = await interactionOf(request, reply);
      if (!interaction) return html(reply, EXPIRED, 400);
      if (interaction.prompt.name === 'login') {
        const session = await sessions.fromCookieHeader(request.headers.cookie, deps.clock());
        if (!session) return signIn(reply, interaction);
        return finish(request, reply, { login: { accountId: accountIdOf(session), remember: false } });
      }
      if (interaction.prompt.name === 'consent') {
        const session = await sameSession(request, interaction);
        if (!session) return html(reply, SIGNED_OUT, 400);
        return showConsent(reply, interaction, session);
      }
      return html(reply, EXPIRED, 400);
    });

    forms.post<{ Params: Params }>('/oauth/interaction/:uid/magic-link', async (request, reply) => {
      const interaction = await interactionOf(request, reply);
      if (!interaction) return html(reply, EXPIRED, 400);
      const form = ZEmail.safeParse(request.body);
      if (!form.success) return signIn(reply, interaction, { error: 'Enter a valid email address.' }, 400);
      // The mailed link is `<base>/verify?token=…`: with this base it comes back to this flow.
      const base = `${deps.env.ISSUER_URL.replace(/\/+$/, '')}${interactionPath(interaction.uid)}`;
      const sent = await requestMagicLink(deps, form.data, base);
      const continueUrl = sent.token
        ? `${interactionPath(interaction.uid)}/verify?token=${encodeURIComponent(sent.token)}`
        : undefined;
      return signIn(reply, interaction, { sent: { continueUrl } });
    });

    // The mailed link shows a button rather than signing in at once: mail scanners that open
    // links must not use up the token.
    forms.get<{ Params: Params }>('/oauth/interaction/:uid/verify', async (request, reply) => {
      const query = ZToken.safeParse(request.query);
      if (!query.success) return html(reply, EXPIRED, 400);
      // Opened in another browser than the request's, the page has no redirect URI to lead on to.
      const interaction = await interactionOf(request, reply);
      return html(reply, verifyPage(request.params.uid, query.data.token), 200, interaction);
    });

    forms.post<{ Params: Params }>('/oauth/interaction/:uid/verify', async (request, reply) => {
      const interaction = await interactionOf(request, reply);
      if (!interaction) return html(reply, EXPIRED, 400);
      const form = ZToken.safeParse(request.body);
      if (!form.success) return html(reply, EXPIRED, 400);
      try {
        const session = await verifyMagicLink(deps, form.data.token);
        return signedIn(reply, interaction.uid, session.token);
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        const message = 'This sign-in link is invalid, expired or already used. Ask for a new one.';
        return signIn(reply, interaction, { error: message }, 400);
      }
    });

    if (deps.env.DEV_LOGIN_ENABLED) {
      forms.post<{ Params: Params }>('/oauth/interaction/:uid/dev-login', async (request, reply) => {
        const interaction = await interactionOf(request, reply);
        if (!interaction) return html(reply, EXPIRED, 400);
        const form = ZEmail.safeParse(request.body);
        if (!form.success) return signIn(reply, interaction, { error: 'Enter a valid email address.' }, 400);
        const session = await devLogin(deps, { email: form.data.email });
        return signedIn(reply, interaction.uid, session.token);
      });
    }

    forms.post<{ Params: Params }>('/oauth/interaction/:uid/consent', async (request, reply) => {
      const interaction = await interactionOf(request, reply);
      if (interaction?.prompt.name !== 'consent') return html(reply, EXPIRED, 400);
      if (!(await sameSession(request, interaction))) return html(reply, SIGNED_OUT, 400);
      const form = ZDecision.safeParse(request.body);
      if (!form.success) return html(reply, EXPIRED, 400);
      if (form.data.decision === 'deny') {
        const denied = { error: 'access_denied', error_description: 'the person denied access' };
        return finish(request, reply, denied, false);
      }
      const grantId = await grantConsent(deps, provider, interaction);
      return finish(request, reply, { consent: { grantId } });
    });
  });

  const showConsent = async (reply: FastifyReply, interaction: Interaction, session: BrowserSession) => {
    const account = await describeAccount(deps.sql, session);
    if (!account) return html(reply, SIGNED_OUT, 400);
    const requested = Object.values(missingResourceScopes(interaction)).flat();
    const page = consentPage({
      uid: interaction.uid,
      clientName: await clientNameOf(interaction),
      redirectHost: URL.parse(String(interaction.params.redirect_uri))?.host ?? '',
      email: account.email,
      orgName: account.orgName,
      scopes: ourScopes(requested.join(' ')),
    });
    return html(reply, page, 200, interaction);
  };
}

const missingResourceScopes = (interaction: Interaction): Record<string, string[]> =>
  (interaction.prompt.details.missingResourceScopes as Record<string, string[]> | undefined) ?? {};

/**
 * Records the person's consent (what the request asked for, for the account signed in) and
 * audits it in the organization as `oauth.consent`.
 */
async function grantConsent(deps: Deps, provider: Provider, interaction: Interaction): Promise<string> {
  const accountId = interaction.session?.accountId;
  const account = parseAccountId(accountId);
  if (!account) throw new Error('consent without a signed-in account');
  const clientId = String(interaction.params.client_id);
  const grant =
    (interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined) ??
    new provider.Grant({ accountId, clientId });
  const oidcScope = interaction.prompt.details.missingOIDCScope as string[] | undefined;
  if (oidcScope?.length) grant.addOIDCScope(oidcScope.join(' '));
  const resources = missingResourceScopes(interaction);
  for (const [indicator, scopes] of Object.entries(resources)) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await recordAudit(deps.sql, {
    orgId: account.orgId,
    action: 'oauth.consent',
    actor: { type: 'user', id: account.userId },
    data: { client_id: clientId, scope: ourScopes(Object.values(resources).flat().join(' ')).join(' ') },
  });
  return grantId;
}
