# sluice — the two commands in the README, and a few more.
#   make demo   install what the demo needs, build sluice, serve the demo database over HTTP
#               on DEMO_ADDR (default 127.0.0.1:8808)
#   make test   bootstrap, build, run every test (ctest)
#   make asan   unit tests under ASan+UBSan      make fuzz   bounded libFuzzer runs
#   make bench  benchmarks, results in bench/results/
#   make install PREFIX=/usr/local [DESTDIR=...]  binary, its DuckDB copy, man page, completion,
#               systemd unit (relocatable: the binary finds lib/sluice relative to itself)
#   make property N=1000000 [SEED=1]   the blocked-field property (tests/property/), long run
#   make property-pg N=100000 [SEED=1] the same property on PostgreSQL (a throwaway cluster)
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
DEMO_ADDR ?= 127.0.0.1:8808
PREFIX ?= /usr/local

N ?= 1000000
SEED ?= 1

.PHONY: bootstrap build demo test asan fuzz bench property property-js property-js-gateway property-pg clean install

bootstrap:
	scripts/bootstrap.sh

build: bootstrap
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Not `build`: the demo installs and builds only what it needs, quietly (scripts/demo.sh).
demo:
	@CMAKE_FLAGS="$(CMAKE_FLAGS)" JOBS="$(JOBS)" scripts/demo.sh $(BUILD) $(DEMO_ADDR)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan: bootstrap
	cmake -S . -B build-asan -DSLUICE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -L unit -j $(JOBS)

fuzz: bootstrap
	scripts/fuzz.sh $(FUZZ_SECONDS)

bench: build
	scripts/bench.sh $(BUILD)

install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

property: build
	PATH="$(CURDIR)/tests/node/node_modules/.bin:$$PATH" node tests/property/run.mjs \
	  --bin $(BUILD)/sluice --work $(BUILD)/property-long --regress tests/property/regressions.txt \
	  --power 400 --seed $(SEED) --count $(N)

# the plan language's canary property run (tests/node/js_canary.mjs), long: N plans per mode
property-js: build
	node tests/node/js_canary.mjs $(BUILD)/js_run $(N) $(SEED)

property-js-gateway: build
	SLUICE_BIN=$(BUILD)/sluice SLUICE_SOURCE_DIR=$(CURDIR) SLUICE_BUILD_DIR=$(BUILD) \
	  CANARY_WORK=$(BUILD)/e2e-canary-long CANARY_COUNT=$(N) CANARY_SEED=$(SEED) \
	  bash tests/e2e/ctest_canary_gateway.sh

property-pg: build
	SLUICE_BIN=$(BUILD)/sluice SLUICE_SOURCE_DIR=$(CURDIR) SLUICE_BUILD_DIR=$(BUILD) \
	  PROPERTY_PG_WORK=$(BUILD)/property-pg-long PROPERTY_PG_COUNT=$(N) PROPERTY_PG_SECONDS=0 \
	  PROPERTY_SEED=$(SEED) bash tests/property/ctest_property_pg.sh

clean:
	rm -rf $(BUILD) build-asan build-fuzz
