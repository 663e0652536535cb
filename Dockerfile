# The server as a container image (docs/deploying.md, ADR 0027). Two stages: the builder installs
# everything and runs `npm run build`; the final stage holds the production artefact only (the files
# tools/build/artefact.ts lists, and the pruned node_modules: no TypeScript, tsx or esbuild), runs as a
# non-root user, keeps its SQLite database on a volume and serves the probes on OPS_PORT.
#
#   docker build -t bearer-list-api .
#   docker run -p 3000:3000 -p 3001:3001 -v api-data:/app/data bearer-list-api
#
# BASE is any Debian-based image with Node 20 in /usr/local (bin/node, bin/npm, include/node), as the
# official images have; the image test builds on a stand-in made on the machine (test/image/).
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS builder
# better-sqlite3 compiles from source when no prebuilt binary can be downloaded; node-gyp then needs
# these, and Node's headers, which the image already has (nodedir): nothing is fetched from nodejs.org.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local \
  npm_config_update_notifier=false \
  npm_config_fund=false \
  npm_config_audit=false
WORKDIR /build
# The manifests first: the install is its own layer, reused until they change.
COPY package.json package-lock.json ./
COPY tools/package.json tools/
RUN --mount=type=cache,target=/root/.npm npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM ${BASE}
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  WEB_PORT=3001 \
  OPS_HOST=0.0.0.0 \
  OPS_PORT=9464 \
  DATABASE_PATH=/app/data/api.sqlite
# A user of its own, whatever the base calls its users; it owns only the data folder.
RUN groupadd --system api && useradd --system --gid api --home-dir /app --no-create-home --shell /usr/sbin/nologin api
WORKDIR /app
# The artefact (tools/build/artefact.ts, ARTEFACT_FILES; test/tools/build/artefact.test.ts holds this list to it), owned by root: read-only to the server.
COPY --from=builder /build/package.json /build/package-lock.json /build/redocly.yaml ./
COPY --from=builder /build/openapi ./openapi
COPY --from=builder /build/dist/src ./dist/src
COPY --from=builder /build/dist/pages ./dist/pages
COPY --from=builder /build/bin ./bin
COPY --from=builder /build/tools/package.json ./tools/package.json
COPY --from=builder /build/node_modules ./node_modules
RUN mkdir -p /app/data && chown api:api /app/data \
  # No setuid or setgid program is left (su, passwd, mount... from the base): a flaw in the server or a dependency
  # cannot use one to become root in the container. The server needs none.
  && find / -xdev -type f -perm /6000 -exec chmod ug-s {} +
VOLUME /app/data
USER api
EXPOSE 3000 3001 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.OPS_PORT + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself as PID 1, not npm: SIGTERM from the runtime reaches the server, which drains and stops. The V8 flag is
# the server's production flag (src/config/node-flags.ts).
CMD ["node", "--max-semi-space-size=8", "bin/run-built.mjs", "server"]
