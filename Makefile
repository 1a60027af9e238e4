# hyperctl: `make train` and `make test` set everything up on a fresh Debian
# machine (see scripts/setup.sh), then run the main job or the tests.
SHELL := bash
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go

.PHONY: all setup build test check train bench fuzz proto clean

all: build

## setup: install libtorch/MuJoCo (apt) and prepare the patched gotch (idempotent)
setup:
	@bash scripts/setup.sh

## build: build bin/hyperctl
build: setup
	$(GO) build -o bin/hyperctl ./cmd/hyperctl

## test: setup, then gofmt, go vet and every test
test: setup
	@bash scripts/check.sh

## train: setup, build, then train HalfCheetah on the default config (fixed hyperparameters; ARGS="--controller hoof" for a controller)
train: build
	./bin/hyperctl train --env halfcheetah $(ARGS)

## bench: Go benchmarks (speed figures go to results/ by hand, with the command)
bench: setup
	$(GO) test -run '^$$' -bench . -benchmem ./...

## fuzz: every fuzz target for FUZZTIME each (default 20s); their seed corpora also run in `make test`
FUZZTIME ?= 20s
FUZZ_TARGETS := \
	./configs:FuzzParse \
	./cmd/hyperctl/internal/seeds:FuzzParse \
	./configs/rundir:FuzzDecodeCheckpoint \
	./ppo:FuzzRestore \
	./envs/all:FuzzRestore \
	./envs/all:FuzzLoadState \
	./controller/service:FuzzRequest
fuzz: setup
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s $$pkg; \
	done

## proto: regenerate the Go code of every committed .proto (protoc + go tool protoc-gen-go)
proto: setup
	@bash scripts/gen-proto.sh

clean:
	rm -rf bin
