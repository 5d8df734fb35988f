#!/usr/bin/env bash
# Prints a directory holding the CustomResourceDefinitions the chart can render (the Prometheus
# Operator's ServiceMonitor and PrometheusRule), for `kubectl-validate --local-crds`. The CRDs come
# from the operator's Go module, so the Go module proxy is the only network needed, once.
set -euo pipefail

module="github.com/prometheus-operator/prometheus-operator"
version="v0.85.0"
crds=(monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_prometheusrules.yaml)

cache="${UNDERDOG_CACHE:-$HOME/.cache/underdog}"
# Named after the set too: a cache made for fewer CRDs is not taken for this one.
dir="$cache/tools/crds-prometheus-operator-$version-servicemonitors-prometheusrules"
if [ -f "$dir/.complete" ]; then
  echo "$dir"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "crds: the Go toolchain is required to download $module@$version (https://go.dev/dl/)" >&2
  exit 1
fi

mkdir -p "$dir"
exec 9>"$dir.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi
if [ ! -f "$dir/.complete" ]; then
  source="$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [ -z "$source" ] || [ ! -d "$source/example/prometheus-operator-crd" ]; then
    echo "crds: go mod download $module@$version did not yield example/prometheus-operator-crd" >&2
    exit 1
  fi
  for crd in "${crds[@]}"; do
    cp "$source/example/prometheus-operator-crd/$crd" "$dir/$crd"
    chmod 644 "$dir/$crd"
  done
  touch "$dir/.complete"
fi
echo "$dir"
