#!/usr/bin/env bash
# Checks the public API against the committed reports (api/*.api.md, one per entry point) with API Extractor: fails
# when an export, signature or type changed and the report was not updated. `npm run api:update` rewrites them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
npm run --silent build
for config in api/*.api-extractor.json; do
  ./node_modules/.bin/api-extractor run -c "$config" >/dev/null || {
    ./node_modules/.bin/api-extractor run -c "$config" 2>&1 | grep -iE 'warning|error' | head -20 >&2
    echo "the public API changed ($config): run 'npm run api:update', review and commit api/*.api.md" >&2
    exit 1
  }
done
echo 'api reports ok'
