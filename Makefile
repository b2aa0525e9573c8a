# Entry points.  The two set-up-from-nothing commands of the README:
#   make bench   - install deps, build, run `opencomp bench` on the built-in sample
#   make check   - install deps, run every test suite (C, CLI, Python, sanitizers, fuzz, CUDA build)
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build bench check test clean

all: build

deps:
	./scripts/install-deps

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

bench: build
	./$(BUILD)/opencomp bench

check: deps
	./scripts/run-tests

test: check

clean:
	rm -rf build build-*
