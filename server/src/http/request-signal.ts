import type { FastifyReply } from 'fastify';

/**
 * The signal a call that waits listens to: aborted when its client goes away or the process
 * stops. Made on first use: most calls never wait, and a controller aborted at every response's
 * close (a DOMException with its stack each time) joined by `AbortSignal.any` cost a few percent
 * of a short call's CPU (docs/benchmarks.md, "mcp").
 */
export function requestSignal(reply: FastifyReply, shutdown: AbortSignal): () => AbortSignal {
  let gone = false;
  let closed: AbortController | undefined;
  let signal: AbortSignal | undefined;
  reply.raw.once('close', () => {
    gone = true;
    closed?.abort();
  });
  return () => {
    if (!signal) {
      closed = new AbortController();
      if (gone) closed.abort();
      signal = AbortSignal.any([closed.signal, shutdown]);
    }
    return signal;
  };
}
