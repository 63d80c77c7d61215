#!/bin/sh
# Re-records every trace of the official ACP SDK into a temporary folder and
# compares it with fixtures/acp/sdk. Exit status 1 when anything differs
# (the fixtures are stale or the recording is not reproducible), 2 when the
# recorder itself fails. Needs `npm ci --prefix conformance/acp-recorder`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../../fixtures/acp/sdk"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/acp-recorder.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! node "$here/record.mjs" --out "$tmp" >/dev/null; then
	echo "check-fresh: recording failed" >&2
	exit 2
fi
# The README is written by hand; everything else is recorded.
if ! diff -r -x README.md "$fixtures" "$tmp"; then
	echo "check-fresh: fixtures/acp/sdk differs from a fresh recording; run: node conformance/acp-recorder/record.mjs" >&2
	exit 1
fi
echo "check-fresh: fixtures/acp/sdk is fresh"
