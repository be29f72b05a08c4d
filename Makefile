# Front door: `make demo` and `make check` (see README.md). CMake does the real work.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
WORLD ?= tests/worlds/rx5700xt

.PHONY: all deps configure build demo check check-system check-vm vm-deps browser-deps bench clean fuzz asan asan-build fuzz-deps lint lint-deps format package rpm

all: build

deps:
	@scripts/install-deps.sh

# RelWithDebInfo with line tables only (-g1): the code is -O2's, a backtrace names file and line,
# and the build costs a third less than with -g (BENCHMARKS.md, "Compile
# build"); CONTRIBUTING.md says how to get -g back. Sources compile eight to a unit (unity build).
$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"

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

# rpm.smoke_build (label rpmbuild) is a whole rpmbuild: `make rpm`, or `ctest -L rpmbuild` in the build folder.
# tests/run_ctest.sh runs ctest, prints the skipped tests with their reasons, writes the results to
# Testing/check.xml (CI's skip check) and fails if a process the tests started is still running;
# --tmpfs puts the tests' temporary trees on a tmpfs (/dev/shm) where it can: copying a world is
# mostly mkdir, ten times slower on a disk (ROCMTUNE_TEST_TMPFS=0 keeps TMPDIR).
check: build
	cd $(BUILD_DIR) && $(CURDIR)/tests/run_ctest.sh --tmpfs check --output-on-failure -j $(JOBS) -LE '^(system|rpmbuild|vm)$$'

# Whole-system tests (label `system`, tests/system/, tests/package/): a debootstrap'd Debian 12
# cached in $(BUILD_DIR)/chroot-cache, grub-mkconfig in a chroot, the Debian package installed,
# upgraded and purged with dpkg, the installed package booted in systemd-nspawn, and the vm tests
# labelled system (QEMU: hence vm-deps). Root; each skips (77) with a reason where it cannot run. CI runs it after `check`.
check-system: vm-deps browser-deps build
	cd $(BUILD_DIR) && $(CURDIR)/tests/run_ctest.sh check-system --output-on-failure -L '^system$$'

# Real boots in QEMU (label `vm`, tests/vm/, README.md "Boot tests in QEMU"): a Debian 12 image with
# the built package, cached in $(BUILD_DIR)/vm-cache, booted with GRUB (BIOS) and systemd-boot (UEFI)
# under TCG unless KVM works; one-shot entries and rocmtune's --trial. Root; about 2-6 minutes a
# scenario, one at a time. The GRUB one-shot and trial-pass scenarios also run in check-system. Only configured,
# not built: the image gets the package scripts/build-deb.sh builds in its own copy of the tree.
vm-deps: deps
	@scripts/install-deps.sh --vm

# The Cockpit page's browser tests (daemon.cockpit.*, label system): cockpit-ws, chromium.
browser-deps: deps
	@scripts/install-deps.sh --browser

check-vm: vm-deps configure
	cd $(BUILD_DIR) && $(CURDIR)/tests/run_ctest.sh check-vm --output-on-failure -L '^vm$$'

# The Debian package (debian/, dpkg-buildpackage -b, then lintian: fails on an error or a warning)
# in $(BUILD_DIR)/package. The package test in `make check-system` installs, upgrades and purges it.
package: deps
	scripts/build-deb.sh $(BUILD_DIR)

bench: build
	$(BUILD_DIR)/tests/bench/rocmtune_bench --benchmark_min_time=0.2

# RPM smoke build (packaging/README.md): packaging/rpm/rocmtune.spec with Debian's rpmbuild and
# packaging/rpm/macros.debian-smoke; the package lands in $(BUILD_DIR)/rpm/RPMS/<arch>/. A real
# Fedora/EL package is built with rpmbuild -ba or mock there. ccache, when set up, keeps a rebuild cheap.
rpm: deps
	JOBS=$(JOBS) packaging/rpm/smoke-build.sh $(BUILD_DIR)/rpm

# Lint (CONTRIBUTING.md, "Style and lint"): clang-format 14 and clang-tidy 14 with the checked-in .clang-format and
# .clang-tidy, and shellcheck over every shell script (scripts/shellcheck.sh). `make lint` configures
# $(BUILD_DIR)/tidy for its compile_commands.json, and builds nothing; CI runs it after `make check` (.ci/run).
# It runs every step and fails at the end if any failed.
lint-deps: deps
	@scripts/install-deps.sh --lint

# clang-tidy checks each source on its own: its compile commands come from $(BUILD_DIR)/tidy,
# configured (never built) without the unity build.
$(BUILD_DIR)/tidy/build.ninja:
	cmake -S . -B $(BUILD_DIR)/tidy -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCMTUNE_UNITY_BUILD=OFF

# LINT_UNITY=1 (CI) checks the unity build's batches instead, with the compile commands of the
# sanitizer build ($(ASAN_DIR), clang's own commands; configured if it is not): the same checks at
# an eighth of the CPU (scripts/tidy.sh). Either way scripts/tidy.sh checks again only what changed
# since it last passed clean (its cache: scripts/tidy_cache.py).
LINT_UNITY ?= 0
ASAN_DIR ?= build-asan
TIDY_DIR = $(if $(filter 1,$(LINT_UNITY)),$(ASAN_DIR),$(BUILD_DIR)/tidy)

lint: lint-deps $(if $(filter 1,$(LINT_UNITY)),fuzz-deps) $(TIDY_DIR)/build.ninja
	@rc=0; \
	echo "== format check self-test"; tests/lint/format_check_test.sh || rc=1; \
	echo "== format check (scripts/format.sh --check)"; scripts/format.sh --check || rc=1; \
	echo "== clang-tidy cache self-test"; tests/lint/tidy_cache_test.sh || rc=1; \
	echo "== clang-tidy (scripts/tidy.sh)"; TIDY_UNITY=$(LINT_UNITY) JOBS=$(JOBS) scripts/tidy.sh $(TIDY_DIR) || rc=1; \
	echo "== shellcheck self-test"; tests/lint/shellcheck_test.sh || rc=1; \
	echo "== shellcheck (scripts/shellcheck.sh)"; scripts/shellcheck.sh || rc=1; \
	exit $$rc

# Reformats every tracked C++ file in place.
format:
	@scripts/install-deps.sh --lint
	@scripts/format.sh

# Fuzzing and sanitizers (CONTRIBUTING.md, tests/fuzz/README.md): one clang build, $(ASAN_DIR),
# serves both. Every object is compiled with ASan + UBSan and libFuzzer's coverage
# (-fsanitize=fuzzer-no-link, ROCMTUNE_FUZZ=ON); the fuzz targets link libFuzzer, everything else
# the sanitizer runtimes only. `make asan` builds it all and runs make check's tests in it (the
# fuzz targets replay their corpora through libFuzzer); `make fuzz` builds the fuzz targets of the
# same folder (nothing, after make asan) and fuzzes each for FUZZ_SECONDS. `make check` stays a
# gcc build. CI's lint reads this folder's compile_commands.json (clang's own commands).
ASAN_DIR ?= build-asan
FUZZ_DIR ?= $(ASAN_DIR)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(shell cat tests/fuzz/targets)
# -O1 with line tables only (-g1) and no build type: OSS-Fuzz's default flags
# (google/oss-fuzz infra/base-images/base-clang/Dockerfile: -O1 -fno-omit-frame-pointer
# -gline-tables-only), enough for a report's stack, at about half the compile of -O2 -g
# (BENCHMARKS.md, CI). Without NDEBUG, the asserts run as well.
SANITIZE_OPT = -O1 -g1
# Every test's TIMEOUT times this under the sanitizers (cmake/TestTimeouts.cmake): a process under
# ASan starts and allocates several times slower, and the daemon and crash tests start hundreds.
ASAN_TIMEOUT_SCALE ?= 5
# -Werror is the gcc build's contract (make check); clang's own extra warnings are shown here.
$(ASAN_DIR)/build.ninja:
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="$(SANITIZE_OPT)" \
	  -DROCMTUNE_FUZZ=ON -DROCMTUNE_WERROR=OFF -DROCMTUNE_TEST_TIMEOUT_SCALE=$(ASAN_TIMEOUT_SCALE)

fuzz-deps: deps
	@scripts/install-deps.sh --fuzz

fuzz: fuzz-deps $(ASAN_DIR)/build.ninja
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(addprefix rocmtune_fuzz_,$(FUZZ_TARGETS))
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_TARGETS)

# make check's tests in the sanitizer build, the package tests included; any report fails its test.
# The system tests run packaged binaries in a chroot, not these.
asan-build: fuzz-deps $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j $(JOBS)

asan: asan-build
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(CURDIR)/tests/run_ctest.sh --tmpfs asan --output-on-failure -j $(JOBS) -LE '^(system|rpmbuild|vm)$$'

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
