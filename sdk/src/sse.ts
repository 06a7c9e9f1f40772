/** One Server-Sent Events message. */
export type SseMessage = { id: string | null; event: string; data: string };

export type SseHandlers = {
  onMessage: (message: SseMessage) => void;
  /** The server's `retry:` advice, in ms. */
  onRetry?: (ms: number) => void;
};

/**
 * Reads a `text/event-stream` body to its end, per the HTML specification's parsing rules
 * (any line ending, `field: value` with one optional space, multi-line data, comments). Uses
 * only `getReader`, which every browser and Node have.
 */
export async function readSse(body: ReadableStream<Uint8Array>, handlers: SseHandlers): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let message: SseMessage = { id: null, event: 'message', data: '' };
  let hasData = false;

  const line = (text: string) => {
    if (text === '') {
      if (hasData) handlers.onMessage({ ...message, data: message.data.slice(0, -1) });
      message = { id: message.id, event: 'message', data: '' };
      hasData = false;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      message.data += `${value}\n`;
      hasData = true;
    } else if (field === 'event') message.event = value;
    else if (field === 'id' && !value.includes('\0')) message.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) handlers.onRetry?.(Number(value));
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (let end = buffer.search(/[\r\n]/); end >= 0; end = buffer.search(/[\r\n]/)) {
        // A lone "\r" at the end may be the first half of "\r\n": wait for the next chunk.
        if (!done && buffer[end] === '\r' && end === buffer.length - 1) break;
        const width = buffer.startsWith('\r\n', end) ? 2 : 1;
        line(buffer.slice(0, end));
        buffer = buffer.slice(end + width);
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
