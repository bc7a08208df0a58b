#!/bin/sh
# Stands in for Prisma's native schema-engine so that `prisma generate` runs offline
# (see ../shared/docs/offline-prisma.md). Migrations run through @prisma/schema-engine-wasm
# in src/db/, never through this file.
if [ "$1" = "--version" ]; then
  echo "schema-engine-cli 0edf323efd1d98336f3f0a68684b56f689b900d3"
  exit 0
fi
echo "signalbox: the native Prisma schema engine is not used here; run 'signalbox migrate'" >&2
exit 1
