import { describe, expect, it } from 'vitest';
import { formTargets, PAGE_SECURITY_HEADERS, pageSecurityHeaders } from './pages';

describe('form-action of the OAuth pages', () => {
  it("is this server, plus the redirect URI's origin or an app's own scheme", () => {
    expect(formTargets('http://127.0.0.1:4999/callback?x=1')).toBe("'self' http://127.0.0.1:4999");
    expect(formTargets('https://client.example/cb')).toBe("'self' https://client.example");
    expect(formTargets('com.example.app:/oauth')).toBe("'self' com.example.app:");
    expect(formTargets(undefined)).toBe("'self'");
    expect(formTargets('not a url')).toBe("'self'");
  });

  it('is part of every page policy, with nothing else loaded or framing allowed', () => {
    expect(PAGE_SECURITY_HEADERS['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(pageSecurityHeaders('https://client.example/cb')['content-security-policy']).toContain(
      "form-action 'self' https://client.example;",
    );
  });
});
