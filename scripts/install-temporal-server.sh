#!/usr/bin/env bash
# `npm run temporal:server:install`: builds the Temporal server and its SQL schema
# tool from the Go module proxy and installs them as `temporal-server` and
# `temporal-sql-tool` in $(go env GOPATH)/bin, where src/launcher/temporal-server.ts
# finds them. Needs Go >= the module's `go` line (1.26.8 for v1.32.1); several minutes
# and ~2 GB of build cache on first run. Only the real-server profile needs it
# (RELAY_TEST_TEMPORAL=server, bench:scaling): `npm test` uses the dev server.
set -euo pipefail
VERSION="${TEMPORAL_SERVER_VERSION:-v1.32.1}"
dest="$(go env GOPATH | cut -d: -f1)/bin"
if [ -x "$dest/temporal-server" ] && [ -x "$dest/temporal-sql-tool" ] \
  && [ "$(cat "$dest/.temporal-server-version" 2>/dev/null)" = "$VERSION" ]; then
  echo "temporal-server $VERSION already in $dest"
  exit 0
fi
gobin="$(mktemp -d)"
trap 'rm -rf "$gobin"' EXIT
echo "building go.temporal.io/server $VERSION (cmd/server, cmd/tools/sql)..."
# GOTOOLCHAIN=local: never download a Go toolchain; fail clearly if this Go is too old.
GOBIN="$gobin" GOTOOLCHAIN=local GOFLAGS=-mod=mod nice -n 10 \
  go install "go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION"
mkdir -p "$dest"
install -m 0755 "$gobin/server" "$dest/temporal-server"
install -m 0755 "$gobin/sql" "$dest/temporal-sql-tool"
echo "$VERSION" > "$dest/.temporal-server-version"
echo "installed $dest/temporal-server and $dest/temporal-sql-tool ($VERSION)"
