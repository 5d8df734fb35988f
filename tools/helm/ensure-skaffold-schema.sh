#!/usr/bin/env bash
# Prints the path of skaffold's published JSON schema for the apiVersion skaffold.yaml uses, for
# tools/test/skaffold.test.ts. The schema comes from skaffold's Go module (docs-v2/content/en/schemas),
# so the Go module proxy is the only network needed, once; building the skaffold binary itself
# would take many minutes on a small CI machine.
set -euo pipefail

module="github.com/GoogleContainerTools/skaffold/v2"
version="v2.16.1"
schema="v4beta11.json"

cache="${UNDERDOG_CACHE:-$HOME/.cache/underdog}"
dir="$cache/tools/skaffold-schema-$version"
if [ -f "$dir/.complete" ]; then
  echo "$dir/$schema"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "skaffold-schema: the Go toolchain is required to download $module@$version (https://go.dev/dl/)" >&2
  exit 1
fi

mkdir -p "$dir"
exec 9>"$dir.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi
if [ ! -f "$dir/.complete" ]; then
  source="$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [ -z "$source" ] || [ ! -f "$source/docs-v2/content/en/schemas/$schema" ]; then
    echo "skaffold-schema: go mod download $module@$version did not yield docs-v2/content/en/schemas/$schema" >&2
    exit 1
  fi
  cp "$source/docs-v2/content/en/schemas/$schema" "$dir/$schema"
  chmod 644 "$dir/$schema"
  touch "$dir/.complete"
fi
echo "$dir/$schema"
