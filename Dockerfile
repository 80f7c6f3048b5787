# Production image for `relay api` and `relay worker` (see docker-compose.yml): the last stage, the default target.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm run build:cli && npm prune --omit=dev

# `relay listen` in a container, from the standalone CLI package (one file, no dependencies: docs/listen.md):
#   docker build --target cli -t relay-cli .
#   docker run --rm -it --network host -v relay-cli:/home/node/.config/relay relay-cli login --api-url https://relay.example.com
#   docker run --rm -it --network host -v relay-cli:/home/node/.config/relay relay-cli listen 4000 my-source --exit-after-disconnect 300
FROM node:20-bookworm-slim AS cli
COPY --from=build /app/packages/cli/package.json /app/packages/cli/README.md /opt/relay-cli/
COPY --from=build /app/packages/cli/dist /opt/relay-cli/dist
RUN ln -s /opt/relay-cli/dist/relay.js /usr/local/bin/relay && mkdir -p /home/node/.config/relay && chown -R node:node /home/node/.config
USER node
ENTRYPOINT ["relay"]
CMD ["--help"]

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 3000
ENTRYPOINT ["node", "--min-semi-space-size=8", "--max-semi-space-size=8", "bin/relay.js"]
CMD ["api"]
