# agentproto: common tasks. `make test` is the test command CI runs.
GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all generate check test test-race bench bench-goals bench-fleet lint schemas conformance fuzz acp-traces acp-traces-check

all: check lint test

# Regenerate every generated file (Go types, bundles, docs).
generate:
	$(GO) generate ./...

# Prove that committed generated files are fresh: regenerate and diff.
check: generate
	@git diff --exit-code --stat -- . ':(exclude)go.sum' || { echo 'generated files are stale: run make generate and commit the result'; exit 1; }
	@test -z "$$(git status --porcelain --untracked-files=all -- '*_gen.go' '*.bundle.json' 'docs/*.md')" || { echo 'untracked generated files: run make generate and commit the result'; git status --porcelain --untracked-files=all -- '*_gen.go' '*.bundle.json' 'docs/*.md'; exit 1; }

test:
	$(GO) test ./...

# The engine checks a trace on a pipeline of goroutines (pkg/validate) and
# the tap and relay check live traffic as it flows (pkg/tap): their tests
# under the race detector. The whole suite under -race takes several times
# the 20 minutes CI has on 2 cores; these packages hold the concurrency.
# -short leaves out the differential tests over every fixture, which check
# one trace after another and run in make test.
test-race:
	$(GO) test -race -short ./pkg/validate ./pkg/tap/...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# The speed goals as ratios measured in one run, each against its baseline:
# the command's CPU against encoding/json decoding the same lines, in the
# benchmark's process (cpu-vs-decode) and as a program of its own
# (cpu-vs-floor), and a 2-line run against a 20,000-line one
# (start-share); two workers against one (speedup); a trace with an error
# in every message against its valid twin (ratio), for ACP and ARCP.
bench-goals:
	$(GO) test -run='^$$' -bench='^BenchmarkGoals$$' -benchtime=9x ./cmd/validate
	$(GO) test -run='^$$' -bench='^Benchmark(Workers|ErrorTwinACP|ErrorTwinACPTag)$$' -benchtime=3x ./pkg/validate
	$(GO) test -run='^$$' -bench='^BenchmarkErrorTwin$$' -benchtime=5x ./pkg/validate/rules/arcp

# Peak memory and files per second of validate over generated folders of
# one-line traces, in every output format (cmd/validate/README.md, Fleets of
# traces): the goal is a peak under 200 MB whatever the number of traces.
# AGENTPROTO_FLEET_DIR keeps the generated fleets between runs.
AGENTPROTO_FLEET ?= 100000,1000000
bench-fleet:
	AGENTPROTO_FLEET=$(AGENTPROTO_FLEET) $(GO) test -run='^$$' -bench='^BenchmarkFleet$$' -benchtime=1x -timeout=6h ./cmd/validate

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt would change the files above'; exit 1; }
	$(GO) vet ./...
	$(STATICCHECK) ./...

# ajv (strict, draft 2020-12, formats on) compiles every published schema
# and its examples, then judges every schema check the Go validator makes on
# the fixtures; any disagreement fails. The harness tests itself first.
conformance:
	npm ci --prefix conformance --no-audit --no-fund --loglevel=error >/dev/null
	npm ci --prefix conformance/acp-recorder --no-audit --no-fund --loglevel=error >/dev/null
	node --test conformance/
	@cases=$$(mktemp) && trap 'rm -f "$$cases"' EXIT && \
	$(GO) run ./conformance/cases -o "$$cases" fixtures && \
	bash conformance/run.sh "$$cases"

# Run each fuzz target for FUZZTIME (default 1m); new corpus entries land in testdata/fuzz.
FUZZTIME ?= 1m
fuzz:
	$(GO) test ./pkg/wire -run='^$$' -fuzz=FuzzDecode -fuzztime=$(FUZZTIME)
	$(GO) test ./gen/load -run='^$$' -fuzz=FuzzLoad -fuzztime=$(FUZZTIME)
	$(GO) test ./gen/internal/testtypes -run='^$$' -fuzz=FuzzEnvelope -fuzztime=$(FUZZTIME)
	$(GO) test ./pkg/sse -run='^$$' -fuzz=FuzzReader -fuzztime=$(FUZZTIME)
	$(GO) test ./pkg/validate/report -run='^$$' -fuzz=FuzzOutput -fuzztime=$(FUZZTIME)
	$(GO) test ./pkg/validate/report -run='^$$' -fuzz=FuzzReportFormats -fuzztime=$(FUZZTIME)
	$(GO) test ./pkg/trace -run='^$$' -fuzz=FuzzReader -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/jsonscan -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME)
	$(GO) test ./pkg/validate -run='^$$' -fuzz=FuzzEngine -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/htmlreport -run='^$$' -fuzz=FuzzPage -fuzztime=$(FUZZTIME)

# Re-record the official ACP SDK's wire traffic into fixtures/acp/sdk.
acp-traces:
	npm ci --prefix conformance/acp-recorder --no-audit --no-fund --loglevel=error >/dev/null
	node conformance/acp-recorder/record.mjs

# The recorded SDK traffic is fresh (a re-recording is byte-identical), and
# validate with no flags reports no error on it, with and without sidecars.
acp-traces-check:
	npm ci --prefix conformance/acp-recorder --no-audit --no-fund --loglevel=error >/dev/null
	sh conformance/acp-recorder/check-fresh.sh
	$(GO) run ./cmd/validate fixtures/acp/sdk/*/*.jsonl
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	for ep in fixtures/acp/sdk/*/; do mkdir -p "$$d/$$(basename $$ep)" && cp "$$ep"*.jsonl "$$d/$$(basename $$ep)/"; done && \
	$(GO) run ./cmd/validate "$$d"/*/*.jsonl
