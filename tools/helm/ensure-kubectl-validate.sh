#!/usr/bin/env bash
# Prints the path of a pinned kubectl-validate (sigs.k8s.io/kubectl-validate), building it with
# `go install` on first use. It validates manifests offline with the same code as the API server
# and embeds the OpenAPI schemas of Kubernetes 1.23-1.35, so `--version 1.31` needs no network
# (kubeconform would download its schemas from GitHub, which CI cannot reach).
# No tagged release carries the 1.31+ schemas yet, so this pins a commit of the main branch.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

version="v0.0.5-0.20260105161640-a97ccfaca20b"

exec "$here/go-tool.sh" kubectl-validate "$version" sigs.k8s.io/kubectl-validate -ldflags "-s -w"
