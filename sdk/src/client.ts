import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import { HttpStatusError, toBeckonError } from './errors';
import {
  iterateEvents,
  type StreamConfig,
  type StreamEvent,
  type SubscribeOptions,
  subscribe,
} from './events';
import { type RetryOptions, randomUuid, withRetry } from './retry';
import { sharedSubscribe } from './shared-stream';
import type {
  AnswerValues,
  AppRouter,
  AskInput,
  Assignee,
  CallOptions,
  Comment,
  CreateItemInput,
  Item,
  ItemList,
  ListItemsInput,
  RouterInputs,
  TimelineEntry,
  UpdateItemInput,
} from './types';
import { type WaitOptions, type WaitOutcome, waitForOutcome } from './wait';

export type ClientOptions = {
  /**
   * The server's address, e.g. `https://beckon.example.com`; the REST prefix (`…/api`) is accepted
   * too and taken off (the client speaks tRPC at `/trpc` and follows events at `/mcp/sse`).
   */
  baseUrl: string;
  /** An API key (agents) or a session / OAuth access token (people). */
  token: string;
  /** Replaces the global fetch (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /** Retries of transient failures (default 3) and the first backoff delay (default 300 ms). */
  retries?: number;
  retryDelayMs?: number;
};

/** A created question: the item, and a way to wait for its outcome. */
export type Question = {
  item: Item;
  waitForAnswer: (options?: WaitOptions) => Promise<WaitOutcome>;
};

type Kind = 'query' | 'action' | 'create';

/**
 * Wraps the user's fetch so that an error answer that is not tRPC's keeps its status instead of
 * failing as unparsable: a proxy's 502 page, or an answer in the API's own error shape (a
 * `baseUrl` of the wrong process: its 404 names the right one).
 */
function statusPreservingFetch(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok) return response;
    const type = response.headers.get('content-type') ?? '';
    const body: unknown = type.includes('json')
      ? await response
          .clone()
          .json()
          .catch(() => null)
      : null;
    // tRPC's own errors are `{error: {...}}`; the API's, `{error: "<sentence>", code, ...}`.
    const trpcError =
      body !== null && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'object';
    if (!trpcError) throw new HttpStatusError(response.status, await response.text());
    return response;
  };
}

export type BeckonClient = ReturnType<typeof createClient>;

/**
 * A typed Beckon client over tRPC (`${baseUrl}/trpc`). Every call rejects with a `BeckonError`
 * subclass; reads and creates are retried on transient failures (creates with one
 * `Idempotency-Key` for all their attempts, so a retry never makes a second item).
 */
export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api$/, '');
  const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const retry: RetryOptions = { retries: options.retries ?? 3, baseDelayMs: options.retryDelayMs ?? 300 };

  const trpc: TRPCClient<AppRouter> = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl}/trpc`,
        fetch: statusPreservingFetch(baseFetch),
        headers: ({ op }) => {
          const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
          const key = op.context.idempotencyKey;
          if (typeof key === 'string') headers['idempotency-key'] = key;
          return headers;
        },
      }),
    ],
  });
  const stream: StreamConfig = { baseUrl, token: options.token, fetch: baseFetch };
  // Every wait of this client follows one event stream (per scope).
  const followEvents = sharedSubscribe(stream);

  /** One logical call: its attempts share the signal and, for creates, the Idempotency-Key. */
  const call = <T>(
    kind: Kind,
    run: (opts: { signal?: AbortSignal; context: Record<string, unknown> }) => Promise<T>,
    callOptions: CallOptions = {},
  ): Promise<T> => {
    const context: Record<string, unknown> = {};
    if (kind === 'create') context.idempotencyKey = callOptions.idempotencyKey ?? randomUuid();
    const opts = { context, ...(callOptions.signal ? { signal: callOptions.signal } : {}) };
    return withRetry(
      () => run(opts),
      { ...retry, safe: kind !== 'action', signal: callOptions.signal },
      toBeckonError,
    );
  };
  const items = trpc.items;
  const act =
    (procedure: { mutate: (input: { id: string }, opts?: object) => Promise<Item> }) =>
    (id: string, callOptions?: CallOptions) =>
      call('action', (o) => procedure.mutate({ id }, o), callOptions);

  const get = (id: string, callOptions?: CallOptions) =>
    call('query', (o) => items.get.query({ id }, o), callOptions);
  const create = (input: CreateItemInput, callOptions?: CallOptions): Promise<Item> =>
    call('create', (o) => items.create.mutate(input, o), callOptions);

  const waitForAnswer = async (id: string, waitOptions: WaitOptions = {}) =>
    waitForOutcome(
      followEvents,
      await get(id, { signal: waitOptions.signal }),
      (signal) => get(id, { signal }),
      {
        scope: 'org',
        ...waitOptions,
      },
    );

  return {
    /** The underlying typed tRPC client, for procedures without a helper here. */
    trpc,
    /** Creates an item (201). */
    create,
    /** Creates a notification: an item without a form, for people to see. */
    notify: create,
    /** Creates a question (an item with a form) and returns it with `waitForAnswer`. */
    async ask(input: AskInput, callOptions?: CallOptions): Promise<Question> {
      // Typed callers cannot forget the form; plain JavaScript callers get told.
      if (!input.form) throw new TypeError('ask() needs a form (use notify() for a notification)');
      const item = await create(input, callOptions);
      return {
        item,
        waitForAnswer: (waitOptions = {}) =>
          waitForOutcome(followEvents, item, (signal) => get(item.id, { signal }), waitOptions),
      };
    },
    /** Waits for the outcome of an existing item (any item the token may read). */
    waitForAnswer,
    list: (input: ListItemsInput = {}, callOptions?: CallOptions): Promise<ItemList> =>
      call('query', (o) => items.list.query(input, o), callOptions),
    get,
    update: (id: string, patch: UpdateItemInput, callOptions?: CallOptions): Promise<Item> =>
      call('action', (o) => items.update.mutate({ ...patch, id }, o), callOptions),
    answer: (id: string, values: AnswerValues, callOptions?: CallOptions): Promise<Item> =>
      call('action', (o) => items.answer.mutate({ id, values }, o), callOptions),
    snooze: (id: string, until: Date | string, callOptions?: CallOptions): Promise<Item> =>
      call(
        'action',
        (o) => items.snooze.mutate({ id, until: until instanceof Date ? until.toISOString() : until }, o),
        callOptions,
      ),
    ack: act(items.ack),
    dismiss: act(items.dismiss),
    unsnooze: act(items.unsnooze),
    pin: act(items.pin),
    unpin: act(items.unpin),
    archive: act(items.archive),
    unarchive: act(items.unarchive),
    restore: act(items.restore),
    withdraw: act(items.withdraw),
    /** Claims an open item for the caller (409 when someone else holds it). */
    claim: act(items.claim),
    /** Releases the claim (your own; anyone's with org.manage). */
    unclaim: act(items.unclaim),
    /** Replaces the assignees; the people added are notified. */
    assign: (id: string, assignees: Assignee[], callOptions?: CallOptions): Promise<Item> =>
      call('action', (o) => items.assign.mutate({ id, assignees }, o), callOptions),
    /** Comments of an item, oldest first. */
    comments: (id: string, callOptions?: CallOptions): Promise<Comment[]> =>
      call('query', (o) => items.comments.query({ id }, o), callOptions),
    /** Adds a comment (201); idempotent like item creation. */
    addComment: (id: string, body: string, callOptions?: CallOptions): Promise<Comment> =>
      call('create', (o) => items.addComment.mutate({ id, body }, o), callOptions),
    /** Audit events and comments merged, oldest first. */
    timeline: (id: string, callOptions?: CallOptions): Promise<TimelineEntry[]> =>
      call('query', (o) => items.timeline.query({ id }, o), callOptions),
    /** The gate (docs/agents.md): whether an agent's tool call may run; `askApproval` builds on it. */
    gate: {
      /** A grant in force for the rule (`{grant}`), else a new question (`{item}`); 201. */
      request: (input: RouterInputs['gate']['request'], callOptions?: CallOptions) =>
        call('create', (o) => trpc.gate.request.mutate(input, o), callOptions),
      /** Records the grant of a question answered "allow for N minutes" (again: the same grant). */
      grant: (itemId: string, callOptions?: CallOptions) =>
        call('create', (o) => trpc.gate.grant.mutate({ item_id: itemId }, o), callOptions),
      /** Grants in force: an agent's own, or the organization's for a person. */
      grants: (callOptions?: CallOptions) =>
        call('query', (o) => trpc.gate.list.query(undefined, o), callOptions),
      /** Ends a grant at once. */
      revoke: (id: string, callOptions?: CallOptions) =>
        call('action', (o) => trpc.gate.revoke.mutate({ id }, o), callOptions),
    },
    /** The identity behind the token, with its role and permissions (a cheap token check). */
    me: (callOptions?: CallOptions) =>
      call('query', (o) => trpc.identity.whoAmI.query(undefined, o), callOptions),
    /** Follows GET /mcp/sse with reconnection (see SubscribeOptions); resolves when aborted. */
    subscribe: (subscribeOptions: SubscribeOptions) => subscribe(stream, subscribeOptions),
    /** The event stream as an async iterable; stop with `signal` or by leaving the loop. */
    events: (subscribeOptions: Omit<SubscribeOptions, 'onEvent'> = {}): AsyncGenerator<StreamEvent> =>
      iterateEvents(stream, subscribeOptions),
  };
}
