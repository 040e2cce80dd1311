# The service as a container image (docs/operations/running.md#the-container-image):
#
#   podman build --format docker -t todo-member-api:0.1.0 \
#     --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg SOURCE="$(git config --get remote.origin.url)" .
#
# (`docker build` takes the same arguments, without --format.) The base images are build
# arguments: the public Node.js 24 images by default. CI, which reaches no container
# registry, passes stand-ins it makes from Debian's packages and the npm registry
# (scripts/container/local-base.sh); test/operations/container.test.ts runs the result.
ARG NODE_IMAGE=node:24-bookworm-slim
ARG BUILD_IMAGE=node:24-bookworm

# ---- production dependencies --------------------------------------------------------------
FROM ${BUILD_IMAGE} AS dependencies
WORKDIR /app
# The SQLite driver for the image's Node.js (src/infra/db/sqlite/sqlite-driver.ts): on
# Node-API 10 and later (Node.js 22.14+, the default 24) better-sqlite3 13, which ships
# prebuilt, and better-sqlite3 12 is never loaded, so it is neither compiled nor kept. On
# an older base (NODE_IMAGE and BUILD_IMAGE of Node.js 20) 12 is compiled against the
# image's own headers, with no download (node-gyp reads npm_config_nodedir). Every other
# install script runs as npm ci runs it, but those package.json's allowScripts refuses.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
COPY scripts/install-scripts.mjs scripts/
# Then the runtime keeps only what runs: not SQLite's sources and object files (some 40 MB),
# nor better-sqlite3 13's binaries for other systems (some 15 MB; this is a glibc Linux image).
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts \
  && napi10="$(node -p 'Number(process.versions.napi) >= 10')" \
  && set -- $(node scripts/install-scripts.mjs --omit=dev \
    $([ "$napi10" = true ] && echo --except=better-sqlite3)) \
  && if [ $# -gt 0 ]; then npm rebuild --no-audit --no-fund "$@"; fi \
  && if [ "$napi10" = true ]; then \
    rm -rf node_modules/better-sqlite3; \
  else \
    rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
      node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/obj.target \
      node_modules/better-sqlite3/build/Release/.deps node_modules/better-sqlite3/build/Release/sqlite3.a \
      node_modules/better-sqlite3/build/Release/test_extension.node; \
  fi \
  && rm -rf node_modules/better-sqlite3-napi/deps node_modules/better-sqlite3-napi/src \
  && find node_modules/better-sqlite3-napi/prebuilds -name '*.node' \
    ! -name "$(node -p 'process.platform + "-" + process.arch').node" -delete

# ---- the bundle and the web app: npm run build -----------------------------------------------
FROM ${BUILD_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the build runs esbuild and Vite, whose binaries arrive as packages;
# nothing native is compiled for a bundle.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/
COPY clients/typescript/src clients/typescript/src
COPY clients/typescript/tsconfig.json clients/typescript/
COPY web web
COPY src src
RUN npm run build

# ---- what runs: Node.js, the production node_modules, dist/ and package.json ---------------
FROM ${NODE_IMAGE}
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG SOURCE=""
LABEL org.opencontainers.image.title="todo-member-api" \
  org.opencontainers.image.description="Todo and Member JSON REST service (Fastify, Kysely on SQLite or PostgreSQL)" \
  org.opencontainers.image.licenses="LicenseRef-Proprietary" \
  org.opencontainers.image.source="${SOURCE}" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.revision="${REVISION}"
WORKDIR /app
# A user of its own, by number (Kubernetes' runAsNonRoot can check only a numeric user).
# The code stays root's and read-only to it; it writes only to data/, SQLite's folder.
# (--no-log-init: no sparse lastlog entry for a high uid, which a layer would store whole.)
RUN groupadd --gid 10001 app \
  && useradd --uid 10001 --gid 10001 --home-dir /app --no-create-home --no-log-init \
    --shell /usr/sbin/nologin app \
  && mkdir data && chown 10001:10001 data
COPY package.json ./
COPY --from=dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
USER 10001:10001
# The default SQLite file is ./data/api.sqlite: keep it on a volume. With PostgreSQL
# (DATABASE_URL) nothing is written, and the root filesystem may be read-only.
VOLUME ["/app/data"]
EXPOSE 8080
# The liveness check, on the loopback address and PORT (8080 unless set): a database
# outage makes /health/ready 503, and must not make the container unhealthy.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself; it finishes the requests in flight,
# closes the database and exits 0 (docs/operations/lifecycle.md#stopping). Node's flags are
# scripts/node-flags.mjs's, as npm start's, and so is its environment: libuv's thread
# pool, where password hashes run, sized before any of the service's code runs.
ENV UV_THREADPOOL_SIZE=2
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--max-semi-space-size=4", "--max-old-space-size=256", "dist/server.js"]
