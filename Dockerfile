# nodus-mock as a container: `docker compose up` (see docker-compose.yml) or
#   docker build -t nodus-mock:local . && docker run -p 8080:8080 -v nodus-mock-data:/data nodus-mock:local
# Builds with the classic builder and BuildKit alike (Debian's docker.io has no BuildKit).

# Node 24, the current LTS. better-sqlite3 compiles from source, so the build stage needs python3,
# make and g++; both stages must be the same Node major, since the addon is built for its ABI.
ARG BUILD_IMAGE=node:24-bookworm
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
# Dependencies first, in their own layer: better-sqlite3's compile (about 100 s) is then redone only
# when the lock file changes, not on every source edit. Install scripts are skipped here because
# `prepare` (the TypeScript build) needs the sources; `npm rebuild` then runs the dependencies' own.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild
COPY . .
# The image holds exactly what `npm pack` publishes (package.json "files"), so the container and an
# installed package cannot drift apart, and catalog/ or scenarios/ are included once they exist.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm pack --ignore-scripts --pack-destination /tmp --loglevel=warn \
 && mkdir /package \
 && tar -xzf /tmp/nodus-mock-*.tgz -C /package --strip-components=1

FROM ${NODE_IMAGE}
# A fixed uid so a host folder mounted on /data can be made writable for it (chown 10001).
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent nodus \
 && mkdir /data \
 && chown nodus:nodus /data
WORKDIR /app
COPY --from=build /package ./
COPY --from=build /app/node_modules ./node_modules
# JSON log lines even under `docker run -t`: a container's logs are read by collectors, not people.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    NODUS_MOCK_DB=/data/nodus-mock.db \
    NODUS_MOCK_LOG_FORMAT=json
USER nodus
VOLUME /data
EXPOSE 8080
# node itself probes readiness: the slim image has no curl, and a database that stopped answering
# makes /readyz fail where /healthz would not.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM from `docker stop`, so its clean shutdown (finish
# in-flight requests, close the database) runs instead of a kill after the stop timeout.
CMD ["node", "dist/bundle/main.js"]
