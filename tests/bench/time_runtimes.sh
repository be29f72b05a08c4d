#!/usr/bin/env bash
# What finding the runtimes costs a whole command (BENCHMARKS.md, "The runtime a program loads").
# Builds two copies of the rx6900xt world: one as captured (no ROCm libraries: the runtime layer
# finds nothing to list), one with the layouts of a real install, sized as AMD's packages are:
#   /opt/rocm-6.3.3  rocBLAS Tensile library: 200 files per target x 11 targets; hipBLASLt 80 x 11;
#                    MIOpen kernel databases for 11 targets
#   /home/u/venv     PyTorch 2.5.1+rocm6.2 with its bundled rocBLAS (7 targets x 200 files) and a
#                    real HIP fat binary as libtorch_hip.so (tests/fixtures/fatbin)
#   ollama.service   ExecStart=/usr/local/bin/ollama with its bundled rocBLAS (5 x 200)
# and times status, check-compute (the venv's environment) and doctor on each with hyperfine.
# Never fails on a slow result: performance is reported, not asserted.
#
#   tests/bench/time_runtimes.sh               # from the repository root, after `make`
#   RUNS=100 BUILD_DIR=build tests/bench/time_runtimes.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$repo/$build" ;; esac
ctl="$build/client/rocmtunectl"
runs="${RUNS:-50}"
warmup="${WARMUP:-5}"

if [[ ! -x "$ctl" ]]; then
  echo "time_runtimes: $ctl not found; build first (make)" >&2
  exit 1
fi
if ! command -v hyperfine >/dev/null 2>&1; then
  echo "time_runtimes: needs hyperfine (sudo apt-get install hyperfine)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap '[[ -n "${KEEP:-}" ]] || rm -rf "$work"' EXIT
bare="$work/bare"
full="$work/full"
cp -a "$repo/tests/worlds/rx6900xt" "$bare"
cp -a "$repo/tests/worlds/rx6900xt" "$full"

targets=(gfx900 gfx906 gfx908 gfx90a gfx942 gfx1010 gfx1012 gfx1030 gfx1100 gfx1101 gfx1102)
rocblas_dir() {  # DIR COUNT TARGET...
  local dir="$1" count="$2"
  shift 2
  mkdir -p "$dir"
  : >"$dir/TensileManifest.txt"
  for t in "$@"; do
    : >"$dir/TensileLibrary_lazy_$t.dat"
    : >"$dir/Kernels.so-000-$t.hsaco"
    for ((i = 0; i < count - 2; i++)); do
      : >"$dir/TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_${i}_$t.co"
    done
  done
}

rocm="$full/opt/rocm-6.3.3"
mkdir -p "$rocm/.info" "$rocm/lib" "$rocm/share/miopen/db"
echo "6.3.3-74" >"$rocm/.info/version"
: >"$rocm/lib/libamdhip64.so.6.3.60303"
ln -s libamdhip64.so.6.3.60303 "$rocm/lib/libamdhip64.so.6"
rocblas_dir "$rocm/lib/rocblas/library" 200 "${targets[@]}"
rocblas_dir "$rocm/lib/hipblaslt/library" 80 "${targets[@]}"
for t in "${targets[@]}"; do : >"$rocm/share/miopen/db/${t}_60.kdb"; done
rm -rf "$full/opt/rocm"
ln -s /opt/rocm-6.3.3 "$full/opt/rocm"

site="$full/home/u/venv/lib/python3.11/site-packages"
mkdir -p "$site/torch/lib" "$full/home/u/venv/bin"
printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n' >"$full/home/u/venv/pyvenv.cfg"
: >"$full/home/u/venv/bin/python3"
printf "__version__ = '2.5.1+rocm6.2'\nhip: Optional[str] = '6.2.41133-dd7f95766'\n" >"$site/torch/version.py"
: >"$site/torch/lib/libamdhip64.so.6.2.41133"
cp "$repo/tests/fixtures/fatbin/libtorch_hip.so" "$site/torch/lib/libtorch_hip.so"
rocblas_dir "$site/torch/lib/rocblas/library" 200 gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100

mkdir -p "$full/usr/local/bin" "$full/usr/local/lib/ollama/rocm" "$full/etc/systemd/system"
: >"$full/usr/local/bin/ollama"
: >"$full/usr/local/lib/ollama/rocm/libamdhip64.so.6.3.42134"
rocblas_dir "$full/usr/local/lib/ollama/rocm/rocblas/library" 200 gfx900 gfx906 gfx1030 gfx1100 gfx1101
printf '[Service]\nExecStart=/usr/local/bin/ollama serve\n' >"$full/etc/systemd/system/ollama.service"

files=$(find "$full/opt" "$full/home" "$full/usr/local/lib/ollama" -type f | wc -l)
echo "machine: $(nproc) CPU(s), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), kernel $(uname -r)"
echo "runtime files in the full world: $files; runs: $runs (+$warmup warm-up) per command"
echo

names=() cmds=()
for w in bare full; do
  root="$work/$w"
  names+=("status --json ($w)" "check-compute --json, venv ($w)" "doctor --json ($w)")
  cmds+=("$ctl --root $root status --json"
         "env VIRTUAL_ENV=/home/u/venv $ctl --root $root check-compute --json"
         "$ctl --root $root doctor --json")
done
for c in "${cmds[@]}"; do
  # check-compute exits 1 for a GPU that is not safe: only a failure to run counts.
  $c >/dev/null 2>&1 || [[ $? -le 2 ]] || { echo "time_runtimes: '$c' failed" >&2; exit 1; }
done

json="$work/times.json"
args=()
for i in "${!cmds[@]}"; do args+=(--command-name "${names[$i]}" "${cmds[$i]}"); done
hyperfine -N -i --style basic --warmup "$warmup" --runs "$runs" --export-json "$json" "${args[@]}" >&2
echo
printf '%-40s %10s %10s %10s\n' command median_ms mean_ms min_ms
/usr/bin/python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%-40s %10.2f %10.2f %10.2f" % (r["command"], r["median"] * 1000, r["mean"] * 1000, r["min"] * 1000))' "$json"
