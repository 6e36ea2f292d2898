#!/usr/bin/env bash
# The GPU machine's frame and per-call run (docs/gpu.md): bench/frame_bench.ts on the machine's driver, and the
# per-call bench (bench/percall_bench.ts) ten times, each process pinned to one core with taskset, for the
# vkGetDeviceQueue ratio against libvulkan. Carried (git-ignored): .gl/libvulkan1_*.deb, .carry/api/deno.xz and
# .cache/bench (the bench libraries built here). Writes $OUT/frame.json, $OUT/percall_<i>.json, $OUT/log.txt.
# Usage there: bash tools/gpu_frame.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
nproc
for f in .gl/libvulkan1_*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig
mkdir -p /tmp/bin
if command -v xz >/dev/null; then xz -dc .carry/api/deno.xz >/tmp/bin/deno; else
  python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' \
    .carry/api/deno.xz /tmp/bin/deno
fi
chmod +x /tmp/bin/deno
export PATH=/tmp/bin:$PATH DENO_DIR=/tmp/deno_dir
touch .cache/bench/*.so
driver=$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
  /etc/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
echo "driver: $driver"
export BENCH_DRIVER_FILES=$driver
echo "== frame"
timeout 180 taskset -c 2 deno run -A bench/frame_bench.ts --json >"$OUT/frame.json"
echo "frame rc=$?"
echo "== percall x10, pinned"
for i in $(seq 1 10); do
  timeout 25 taskset -c 3 deno run -A bench/percall_bench.ts --json --rounds 15 >"$OUT/percall_$i.json"
  echo "percall $i rc=$?"
done
date -u
