# Beckon's production image: the compiled server (docs/deployment.md). Not built on the project's
# machines (they reach no image registry); what it runs is what tests/src/packaging/deploy.test.ts
# runs: `pnpm deploy --prod --no-optional` of @beckon/server and the package.json production
# scripts with plain node. One image for every process: compose.yaml picks the command.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN npm install -g pnpm@12.21.0
WORKDIR /src
# Dependencies first, from the lockfile alone (`pnpm fetch` reads no package.json): this layer is
# rebuilt only when the lockfile, the workspace file or a patch changes, not on every edit.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY patches patches
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline \
 && pnpm build \
 && pnpm --filter @beckon/server deploy --prod --no-optional /app/server \
 && mkdir -p /app/web && cp -r web/dist /app/web/dist

# The repository's layout, reduced to what runs: server/ (dist and production node_modules) and
# web/dist beside it, so the package.json scripts' `node server/dist/<process>.mjs` work in /app.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app /app
RUN mkdir /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT ?? 3000}/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server/dist/resource.mjs"]
