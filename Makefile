# Thin wrapper: the real build is CMake (CMakePresets.json). `make demo` and `make test` work from a bare
# Debian 12 machine; after any target the binary is at build/torchlint.
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: setup build demo test lint bench clean

setup:
	@scripts/setup.sh

build: setup
	@cmake --preset release $(CMAKE_ARGS) >/dev/null
	@cmake --build --preset release -j $(JOBS)

demo: build
	build/torchlint check examples/ ; test $$? -le 1

test: build
	ctest --preset release -j $(JOBS)

lint: build
	scripts/lint.sh build

bench: build
	bench/check.sh && bench/trace.sh && build/bench/bench_annotate

clean:
	rm -rf build build-dev
