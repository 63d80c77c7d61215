#!/usr/bin/env bash
# Cross-checks agentproto's JSON Schemas with ajv, a second and independent
# validator: installs the pinned packages from package-lock.json, compiles
# every schema in schema/ in strict mode with its examples, and, given a cases
# file written by the Go validator, checks that ajv agrees with every verdict.
#
# usage: conformance/run.sh [CASES.jsonl]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

cases=""
if [[ $# -gt 1 ]]; then
	echo "usage: $0 [CASES.jsonl]" >&2
	exit 2
elif [[ $# -eq 1 ]]; then
	# Resolve the path before anything changes directory.
	if [[ "$1" = /* ]]; then cases="$1"; else cases="$PWD/$1"; fi
	if [[ ! -r "$cases" ]]; then
		echo "conformance: cannot read $1" >&2
		exit 2
	fi
fi

# npm ci prints a one-line summary on stdout; errors go to stderr.
npm ci --prefix "$here" --no-audit --no-fund --prefer-offline --loglevel=error >/dev/null

status=0
node "$here/compile.mjs" "$here/../schema" || status=1
if [[ -n "$cases" ]]; then
	node "$here/check.mjs" --schemas "$here/../schema" "$cases" || status=1
fi
exit "$status"
