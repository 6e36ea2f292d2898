#!/usr/bin/env bash
# The start-up run on the GPU machine (docs/gpu.md, "Start-up and the compute job"): unpacks the carried
# libvulkan and libglvnd debs (.gl) and Deno (.carry/api/deno.xz), then writes into $OUT: first.json
# (bench/first_bench.ts, warm Deno cache), cold.txt (each script with a fresh DENO_DIR per process),
# compute.json (bench/compute_bench.ts: vkdeno, the same program over libvulkan, Deno's WebGPU).
# Usage there: bash tools/gpu_start.sh 2>&1 | tee $OUT/log
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p /tmp/bin
if command -v xz >/dev/null; then xz -dc .carry/api/deno.xz >/tmp/bin/deno; else
  python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' \
    .carry/api/deno.xz /tmp/bin/deno
fi
chmod +x /tmp/bin/deno
export PATH=/tmp/bin:$PATH DENO_DIR=/tmp/deno_dir
driver=$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
  /etc/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
echo "driver: $driver"
export BENCH_DRIVER_FILES=$driver
deno --version | head -1
# Cold: a fresh DENO_DIR per process (Deno transpiles and compiles every module), alternating.
{
  for i in 1 2 3 4 5; do
    for s in libvulkan vkdeno; do
      d=$(mktemp -d)
      t0=$(date +%s%N)
      DENO_DIR=$d VK_DRIVER_FILES=$driver NODEVICE_SELECT=1 deno run -A "bench/first/$s.ts" >/dev/null
      echo "$s $(((($(date +%s%N) - t0)) / 1000000))"
      rm -rf "$d"
    done
  done
} >"$OUT/cold.txt" 2>&1
cat "$OUT/cold.txt"
timeout 200 deno run -A bench/first_bench.ts --rounds 21 --json >"$OUT/first.json"
echo "first_bench: rc=$?"
timeout 240 deno run -A bench/compute_bench.ts --rounds 11 --json >"$OUT/compute.json"
echo "compute_bench: rc=$?"
