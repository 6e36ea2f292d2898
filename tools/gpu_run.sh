#!/usr/bin/env bash
# The command run on the GPU machine through the device tool (docs/gpu.md says how). The machine starts bare:
# this unpacks the carried Debian packages (libvulkan1 and libglvnd into /, as NVIDIA's driver needs
# libGLdispatch; the validation layer into /tmp), the carried Deno and its npm cache, then runs
# tools/gpu_check.ts, which writes gpu_report.json and gpu_report.md into $OUT.
# Carried (git-ignored): .gl (debs), .carry/api (deno.xz, deno_dir), .cache/mock/<hash> and .cache/bench
# (mock driver and bench libraries built here, used when the machine has no cc).
# Usage there: GPU_KIND=<kind> [GPU_STARTUP=. [GPU_STARTUP_OUT=h100] [GPU_STARTUP_ONLY=1]] bash tools/gpu_run.sh
#   [gpu_check options]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"

echo "== probe"
date -u
uname -a
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
for c in cc gcc xz dpkg python3 vulkaninfo; do printf '%s: %s\n' "$c" "$(command -v $c || echo missing)"; done
ls -l /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1 | head -20
ldconfig -p | grep -E 'libvulkan|libGLX_nvidia|libGLdispatch|libnvidia-glcore' | head

echo "== unpack"
for f in .gl/libvulkan1_*.deb .gl/libglvnd0_*.deb .gl/libegl1_*.deb .gl/libgl1_*.deb .gl/libglx0_*.deb \
  .gl/libgles2_*.deb .gl/libopengl0_*.deb .gl/libvulkan-dev_*.deb; do
  [ -e "$f" ] && dpkg -x "$f" /
done
ldconfig
rm -rf /tmp/vvl /tmp/vvl-layers && mkdir -p /tmp/vvl /tmp/vvl-layers
dpkg -x .gl/vulkan-validationlayers_*.deb /tmp/vvl
# The manifest names the library bare (found through ld.so.conf when installed): point it at /tmp/vvl.
sed 's#"library_path": *"[^"]*"#"library_path": "/tmp/vvl/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so"#' \
  /tmp/vvl/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json \
  >/tmp/vvl-layers/VkLayer_khronos_validation.json
mkdir -p /tmp/bin
if command -v xz >/dev/null; then xz -dc .carry/api/deno.xz >/tmp/bin/deno; else
  python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' \
    .carry/api/deno.xz /tmp/bin/deno
fi
chmod +x /tmp/bin/deno
export PATH=/tmp/bin:$PATH
rm -rf /tmp/deno_dir && cp -r .carry/api/deno_dir /tmp/deno_dir
export DENO_DIR=/tmp/deno_dir
# Prebuilt test and bench libraries count as fresh (tests/support/c_build.ts rebuilds when the source is newer).
touch .cache/bench/*.so .cache/c/*.so 2>/dev/null
deno --version | head -1
ldconfig -p | grep -E 'libvulkan.so.1|libGLdispatch' | head

# The startup and creation benchmarks (bench/first_bench.ts, bench/create_bench.ts) on this
# machine's driver, with RenderDoc's capture layer when its debs are carried: GPU_STARTUP=DIR runs them in
# the checkout DIR (`.` for this one; another, e.g. an older commit's, carried under .carry/) and keeps the
# runs in $OUT/$GPU_STARTUP_OUT (bench/report.ts --kept), for bench/out/h100/ here.
startup() {
  local dir=$1 kept=$2
  rm -rf /tmp/rd && mkdir -p /tmp/rd
  for f in .gl/librenderdoc_*.deb .gl/libx11-6_*.deb .gl/libx11-data_*.deb .gl/libxcb1_*.deb \
    .gl/libxcb-keysyms1_*.deb .gl/libstb0_*.deb .gl/libxau6_*.deb .gl/libxdmcp6_*.deb .gl/libbsd0_*.deb \
    .gl/libmd0_*.deb; do
    [ -e "$f" ] && dpkg -x "$f" /tmp/rd
  done
  if [ -e /tmp/rd/usr/lib/librenderdoc.so ]; then
    mkdir -p /usr/share/vulkan/implicit_layer.d
    sed 's#"library_path": *"[^"]*"#"library_path": "/tmp/rd/usr/lib/librenderdoc.so"#' \
      /tmp/rd/usr/share/vulkan/implicit_layer.d/renderdoc_capture.json \
      >/usr/share/vulkan/implicit_layer.d/renderdoc_capture.json
  fi
  local driver
  driver=$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
    /etc/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
  (
    cd "$dir" || exit 1
    export BENCH_DRIVER_FILES=$driver BENCH_LAYER_PATH=/tmp/vvl-layers BENCH_PIN_DRIVER=1
    export LD_LIBRARY_PATH=/tmp/rd/usr/lib/x86_64-linux-gnu:/tmp/rd/lib/x86_64-linux-gnu
    for s in "Time to first instance:bench/first_bench.ts" "Instance and device creation:bench/create_bench.ts"; do
      timeout 240 deno run --cached-only -A bench/report.ts --paired --runs "${GPU_STARTUP_RUNS:-3}" \
        --kept "$OUT/$kept" --output "$OUT/$kept.md" --section "${s%%:*}" "${s#*:}" >/dev/null
      echo "startup ${s#*:}: rc=$?"
    done
  )
}

rc=0
if [ -z "${GPU_STARTUP_ONLY:-}" ]; then
  echo "== gpu_check"
  deno run --cached-only -A tools/gpu_check.ts --out "$OUT" --layer-path /tmp/vvl-layers --cached-only "$@"
  rc=$?
fi
if [ -n "${GPU_STARTUP:-}" ]; then
  echo "== startup benchmarks in ${GPU_STARTUP}"
  startup "$GPU_STARTUP" "${GPU_STARTUP_OUT:-h100}"
fi
echo "== done rc=$rc"
exit $rc
