import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

// Build tooling, not the server: the ports come from the same variables the server reads
// (server/src/env.ts), with the same defaults.
const host = '127.0.0.1';
const resource = `http://${host}:${process.env.PORT ?? 3000}`;
const auth = `http://${host}:${process.env.AUTH_PORT ?? 3001}`;
const appPort = Number(new URL(process.env.APP_URL ?? 'http://localhost:5173').port || 5173);

/** The dashboard's own page under /auth: external sign-in lands on /auth/callback#token=…. */
const dashboardPage = (path: string | undefined) =>
  path === '/auth/callback' || path?.startsWith('/auth/callback?') ? '/index.html' : undefined;

const toAuth: ProxyOptions = { target: auth, xfwd: true, bypass: (req) => dashboardPage(req.url) };
const toResource: ProxyOptions = { target: resource, xfwd: true };

/**
 * `pnpm dev`: the same routing as the gateway (server/src/http/gateway.ts): /auth, /oauth and
 * /.well-known to the authorization process; /api (WebSocket included), /trpc, /mcp, /webhooks
 * and the operations endpoints to the resource process; everything else is the dashboard.
 */
export default defineConfig({
  plugins: [react(), tailwindcss()],
  server: {
    port: appPort,
    strictPort: true,
    proxy: {
      '^/auth(/|$)': toAuth,
      '^/oauth(/|$)': toAuth,
      '^/\\.well-known(/|$)': toAuth,
      '^/api(/|$)': { ...toResource, ws: true },
      '^/trpc(/|$)': toResource,
      '^/mcp(/|$)': toResource,
      '^/webhooks(/|$)': toResource,
      // Not /metrics: it stays on the processes' ports, as behind the gateway.
      '^/(health|ready)$': toResource,
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
});
