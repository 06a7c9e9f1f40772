export type SseEvent = { id: string | null; event: string; data: string };

/**
 * A real Server-Sent Events client over fetch: parses frames as they arrive and keeps them.
 * `close()` disconnects like a dropped connection.
 */
export async function openEventStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  const reading = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { id: null, event: 'message', data: '' };
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) [event.id, isEvent] = [line.slice(4), true];
            else if (line.startsWith('event: ')) [event.event, isEvent] = [line.slice(7), true];
            else if (line.startsWith('data: ')) [event.data, isEvent] = [event.data + line.slice(6), true];
          }
          if (isEvent) events.push(event);
        }
      }
    } catch {
      // aborted or closed by the server
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    /** Waits until `predicate` holds over the events received so far. */
    async until(predicate: (events: SseEvent[]) => boolean, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(events)) {
        if (Date.now() > deadline)
          throw new Error(`stream: condition not met; got ${JSON.stringify(events)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    /** Resolves when the server ends the stream. */
    ended: reading,
    close() {
      controller.abort();
    },
  };
}
