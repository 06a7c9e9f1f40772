import { randomUUID } from 'node:crypto';
import {
  MISSING_CLIENT_CAPABILITY,
  MODERN_METHODS,
  TASKS_EXTENSION,
  tasksDeclared,
} from '@beckon/server/mcp/modern';
import { type Method, type RpcContext, RpcError } from '@beckon/server/mcp/rpc';

/**
 * The conformance suite's task fixtures (2026-07-28, extension io.modelcontextprotocol/tasks,
 * SEP-2663): tools that run as background jobs (`slow_compute`, `failing_job`, …), some of them
 * asking for input while they run. Beckon's own tasks each follow an item; these are jobs held in
 * memory by the test server. Task ids these jobs do not know go to Beckon's own tasks methods
 * (modern.ts), which answer them as for its items' tasks. Test code only.
 */

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
type InputRequest = { method: string; params: Record<string, unknown> };
type Job = {
  taskId: string;
  owner: string;
  status: Status;
  createdAt: string;
  lastUpdatedAt: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  pending: Record<string, InputRequest>;
  answers: Record<string, unknown>;
  wake: () => void;
  stop: AbortController;
};
/** What a running job can do: ask its client for input (all at once), and see it was cancelled. */
type Run = {
  input: (requests: Record<string, InputRequest>) => Promise<Record<string, unknown>>;
  signal: AbortSignal;
};

const TTL_MS = 600_000;
const POLL_MS = 200;
const text = (value: string) => ({ type: 'text', text: value });
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
const ownerOf = (ctx: RpcContext) => `${ctx.identity.orgId}:${ctx.identity.credentialId}`;
const terminal = (status: Status) => status === 'completed' || status === 'failed' || status === 'cancelled';

const jobs = new Map<string, Job>();

/** A task as CreateTaskResult and tasks/get show it (SEP-2663: durations in milliseconds). */
const envelope = (job: Job) => ({
  taskId: job.taskId,
  status: job.status,
  createdAt: job.createdAt,
  lastUpdatedAt: job.lastUpdatedAt,
  ttlMs: TTL_MS,
  pollIntervalMs: POLL_MS,
});

function settle(job: Job, status: Status, outcome: Pick<Job, 'result' | 'error'> = {}) {
  if (terminal(job.status)) return;
  Object.assign(job, { status, ...outcome, lastUpdatedAt: new Date().toISOString() });
}

/** Starts `work` as a task of the caller; the CreateTaskResult, once tasks/get can find it. */
function start(ctx: RpcContext, work: (run: Run) => Promise<Record<string, unknown>>) {
  const now = new Date().toISOString();
  const job: Job = {
    taskId: randomUUID(),
    owner: ownerOf(ctx),
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    pending: {},
    answers: {},
    wake: () => {},
    stop: new AbortController(),
  };
  jobs.set(job.taskId, job);
  setTimeout(() => jobs.delete(job.taskId), TTL_MS).unref();
  const input = (requests: Record<string, InputRequest>) =>
    new Promise<Record<string, unknown>>((resolve) => {
      job.stop.signal.addEventListener('abort', () => resolve(job.answers), { once: true });
      job.pending = { ...requests };
      settle(job, 'input_required');
      job.wake = () => {
        if (Object.keys(job.pending).length > 0 || job.stop.signal.aborted) return;
        job.status = 'working';
        resolve(job.answers);
      };
    });
  work({ input, signal: job.stop.signal }).then(
    (result) => settle(job, 'completed', { result }),
    (error: unknown) => {
      const { code, message } = RpcError.from(error);
      settle(job, 'failed', { error: { code, message } });
    },
  );
  return { resultType: 'task', ...envelope(job) };
}

const elicit = (message: string, property: string, type = 'string') => ({
  method: 'elicitation/create',
  params: {
    message,
    requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] },
  },
});
const accepted = (answer: unknown) =>
  (answer as { content?: Record<string, unknown> } | undefined)?.content ?? {};

type TaskTool = {
  description: string;
  inputSchema: Record<string, unknown>;
  /** Whether it runs only as a task (a client without the extension is refused with -32021). */
  required?: boolean;
  run: (args: Record<string, unknown>, run: Run) => Promise<Record<string, unknown>>;
};

const slowCompute = async (args: Record<string, unknown>, run: Pick<Run, 'signal'>) => {
  await sleep(Number(args.seconds ?? 0) * 1000, run.signal);
  return {
    content: [text(`Computed ${String(args.label ?? 'result')} after ${Number(args.seconds ?? 0)}s`)],
  };
};

const TASK_TOOLS: Record<string, TaskTool> = {
  slow_compute: {
    description: 'Sleeps `seconds`, then answers (as a task for clients of the tasks extension)',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    run: slowCompute,
  },
  failing_job: {
    description: 'A task whose tool reports an error',
    inputSchema: { type: 'object', properties: {} },
    required: true,
    run: async (_args, run) => {
      await sleep(300, run.signal);
      return { isError: true, content: [text('The job failed')] };
    },
  },
  protocol_error_job: {
    description: 'A task that fails with a protocol error',
    inputSchema: { type: 'object', properties: {} },
    run: async () => {
      throw new RpcError(-32603, 'Internal error: the job crashed');
    },
  },
  confirm_delete: {
    description: 'Asks to confirm before deleting a file',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    run: async (args, run) => {
      const answers = await run.input({
        confirm: elicit(`Delete ${String(args.filename)}?`, 'confirm', 'boolean'),
      });
      const confirmed = accepted(answers.confirm).confirm === true;
      return { content: [text(confirmed ? `Deleted ${String(args.filename)}` : 'Not deleted')] };
    },
  },
  multi_input: {
    description: 'Asks for two inputs at once',
    inputSchema: { type: 'object', properties: {} },
    run: async (_args, run) => {
      const answers = await run.input({
        first: elicit('First input', 'name'),
        second: elicit('Second input', 'name'),
      });
      return {
        content: [
          text(`Got ${String(accepted(answers.first).name)} and ${String(accepted(answers.second).name)}`),
        ],
      };
    },
  },
};

const REQUIRED = () =>
  new RpcError(MISSING_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });

/** `test_tool_with_task`: asks the user's name in a multi round-trip request, then runs as a task. */
function greetAsTask(ctx: RpcContext, params: Record<string, unknown>) {
  if (!ctx.modern?.tasks) throw REQUIRED();
  const responses = params.inputResponses as Record<string, unknown> | undefined;
  const name = accepted(responses?.user_name).name;
  if (typeof name !== 'string')
    return {
      resultType: 'input_required',
      inputRequests: { user_name: elicit('What is your name?', 'name') },
    };
  return start(ctx, async (run) => {
    await sleep(100, run.signal);
    return { content: [text(`Hello, ${name}!`)] };
  });
}

export const TASK_TOOL_LIST = [
  {
    name: 'greet',
    description: 'Greets (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  ...Object.entries(TASK_TOOLS).map(([name, tool]) => ({
    name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    execution: { taskSupport: tool.required ? 'required' : 'optional' },
  })),
  {
    name: 'test_tool_with_task',
    description: 'Asks for a name, then greets as a task',
    inputSchema: { type: 'object', properties: {} },
    execution: { taskSupport: 'required' },
  },
];

/** tools/call of a task fixture, or null for another tool. */
export async function callTaskTool(ctx: RpcContext, params: Record<string, unknown>) {
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  if (params.name === 'greet') return { content: [text(`Hello, ${String(args.name)}!`)] };
  if (params.name === 'test_tool_with_task') return greetAsTask(ctx, params);
  const tool = TASK_TOOLS[String(params.name)];
  if (!tool) return null;
  if (ctx.modern?.tasks) return start(ctx, (run) => tool.run(args, run));
  if (tool.required) throw REQUIRED();
  // A client without the extension: the job runs within the call.
  return tool.run(args, { input: async () => ({}), signal: ctx.signal ?? new AbortController().signal });
}

/** The caller's job, or null (then Beckon's own tasks methods answer). */
function jobOf(ctx: RpcContext, params: Record<string, unknown>): Job | null {
  tasksDeclared(ctx);
  const job = jobs.get(String(params.taskId ?? ''));
  return job && job.owner === ownerOf(ctx) ? job : null;
}
const beckon = (method: string) => MODERN_METHODS[method] as Method;

export const TASK_METHODS: Record<string, Method> = {
  'tasks/get': async (ctx, params) => {
    const job = jobOf(ctx, params);
    if (!job) return beckon('tasks/get')(ctx, params);
    return {
      ...envelope(job),
      ...(job.status === 'input_required' ? { inputRequests: job.pending } : {}),
      ...(job.status === 'completed' && job.result
        ? { result: { ...job.result, resultType: 'complete' } }
        : {}),
      ...(job.status === 'failed' && job.error ? { error: job.error } : {}),
    };
  },
  'tasks/update': async (ctx, params) => {
    const job = jobOf(ctx, params);
    if (!job) return beckon('tasks/update')(ctx, params);
    const responses = params.inputResponses;
    if (!responses || typeof responses !== 'object' || Array.isArray(responses))
      throw new RpcError(-32602, 'Invalid params: inputResponses must be an object');
    // Answers to requests the job is not waiting for are ignored.
    for (const [key, response] of Object.entries(responses)) {
      if (!(key in job.pending)) continue;
      job.answers[key] = response;
      delete job.pending[key];
    }
    job.lastUpdatedAt = new Date().toISOString();
    job.wake();
    return {};
  },
  'tasks/cancel': async (ctx, params) => {
    const job = jobOf(ctx, params);
    if (!job) return beckon('tasks/cancel')(ctx, params);
    settle(job, 'cancelled');
    job.stop.abort();
    return {};
  },
};
