export type HttpResponse<T = unknown> = { status: number; headers: Headers; body: T; text: string };

type RequestOptions = {
  token?: string | null;
  headers?: Record<string, string>;
  /** A JSON value, or a raw string sent as is. */
  body?: unknown;
  raw?: boolean;
  /** 'manual' answers a redirect itself (status and Location) instead of following it. */
  redirect?: 'follow' | 'manual';
};

/** Real HTTP against a test server, with the bearer token and JSON handling every test needs. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null = null,
  ) {}

  as(token: string | null): HttpClient {
    return new HttpClient(this.baseUrl, token);
  }

  async request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = options.raw ? String(options.body) : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body,
      redirect: options.redirect ?? 'follow',
    });
    const text = await response.text();
    let parsed: unknown = text;
    // One JSON document; JSON Lines (application/jsonl) stay text.
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('json') && !type.includes('jsonl') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = unknown>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
