# Front door: `make demo` and `make check` (see README.md). CMake does the real work.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
WORLD ?= tests/worlds/rx5700xt

.PHONY: all deps configure build demo check bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	@echo "== rocmtunectl --root $(WORLD) status"
	@$(BUILD_DIR)/client/rocmtunectl --root $(WORLD) status
	@echo
	@echo "== rocmtunectl --root tests/worlds/mi300x-cpx status   (63 compute partitions on 8 physical GPUs)"
	@$(BUILD_DIR)/client/rocmtunectl --root tests/worlds/mi300x-cpx status | head -12
	@echo "   ..."
	@echo
	@scripts/demo-change.sh $(BUILD_DIR)

check: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD_DIR)/tests/bench/rocmtune_bench --benchmark_min_time=0.2

clean:
	rm -rf $(BUILD_DIR)
