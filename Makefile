# Thin wrapper: the real build is CMake (CMakePresets.json). `make demo` and `make test` work from a bare
# Debian 12 machine; after any target the binary is at build/torchlint.
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: setup configure build demo test lint bench clean

setup:
	@scripts/setup.sh

configure: setup
	@cmake --preset release $(CMAKE_ARGS) >/dev/null

# Everything: the binary, its man page and completions, the tests and the benchmarks.
build: configure
	@cmake --build --preset release -j $(JOBS)

# Only the binary (and what it generates: the man page and completions), then a run on the examples.
demo: configure
	@cmake --build --preset release -j $(JOBS) --target torchlint
	build/torchlint check examples/ ; test $$? -le 1

test: build
	ctest --preset release -j $(JOBS)

lint: build
	scripts/lint.sh build

bench: build
	bench/check.sh && bench/trace.sh && build/bench/bench_annotate

clean:
	rm -rf build build-dev
