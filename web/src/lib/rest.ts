import { ApiError, type ApiErrorBody } from './errors';
import { getToken } from './session';

/** A same-origin REST call with the session token; failures throw ApiError with the API's body. */
export async function rest(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = getToken();
  if (token) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(path, { ...init, headers });
  if (!response.ok) {
    let body: ApiErrorBody = { error: `HTTP ${response.status}` };
    try {
      const parsed: unknown = await response.json();
      if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) body = parsed as ApiErrorBody;
    } catch {
      // Not JSON (a proxy's error page): keep the status.
    }
    throw new ApiError(response.status, body);
  }
  return response;
}

export async function restJson<T>(path: string, method: string, body: unknown): Promise<T> {
  const response = await rest(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as T;
}
