#!/usr/bin/env bash
# The H200 table of sort, decode products, GEMM and the queue's latency in one device call:
# the yardsticks (CUB's cub_bench and cub_more, torch's cuda_anchors.py and
# lab/yardsticks/torch_decode.py) and wgsimd's figures (the queue, OneSweep keys and pairs, large
# GEMM, the decode shapes on the lab's few-rows sweep), each step under its
# own timeout so the whole fits one 600-second command. Every log goes into one tarball,
# $OUT/table.tar (the device returns a few files only), beside $OUT/steps.log (each step's start);
# the tarball is rewritten as each step starts, so a command cut short still returns the steps
# before.
# Needs .yardstick/ (prepare.sh) with bin/wgsimd and bin/gemv_sweep built from this tree:
#   run: bash .yardstick/remote.sh bash lab/yardsticks/h200_table.sh   (carry .gl, .yardstick)
set -u
B=.yardstick/bin
L=$(mktemp -d)
T0=$(date +%s)
step() {
  echo "## $1 at $(( $(date +%s) - T0 )) s" | tee -a "$OUT/steps.log"
  tar -C "$L" -cf "$OUT/table.tar" .
}
left() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }

step queue
timeout 60 $B/wgsimd bench --only queue --sizes 2^20,2^24,2^26 --repeats 20 > $L/queue.txt 2>&1
step cub
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/cub_bench .yardstick/cub_bench.cu \
  && timeout 90 /tmp/cub_bench > $L/cub.log 2>&1
step sort
# a process per case and size (a case's figure can depend on what ran before it); pairs at 2^28
# verify for about half a minute on the host
for c in 2 3; do
  for s in 2^20 2^24 2^26 2^28; do
    timeout 60 $B/wgsimd bench --only sort --sizes $s --case $c --compare $L/cub.log \
      --json "$L/sort_${c}_${s/^/_}.json" >> $L/sort.txt 2>&1
  done
done
# the picture of keys and pairs against CUB, drawn from the processes' reports together
$B/wgsimd plot $L/sort_*.json -o $L/sort.svg >> $L/sort.txt 2>&1
step torch_decode
timeout 60 python3 lab/yardsticks/torch_decode.py > $L/torch_decode.log 2>&1
step decode
for m in 1 2 4 8 16 32 64; do
  for nk in 4096x4096 14336x4096 4096x14336; do
    left 400 || break 2
    timeout 20 $B/gemv_sweep --formats f16,int4 --splits 1 --repeats 20 ${m}x$nk 2>&1 \
      | grep -E "^#|auto" >> $L/decode.txt
  done
done
step anchors
timeout 100 python3 .yardstick/cuda_anchors.py > $L/cuda.log 2>&1
step gemm
timeout 60 $B/wgsimd bench --only gemm --gemm-shapes 4096x4096x4096,8192x8192x8192 --repeats 10 \
  --compare $L/cuda.log > $L/gemm.txt 2>&1
step cub_more
if left 520; then
  nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/cub_more .yardstick/cub_more.cu \
    && timeout 40 /tmp/cub_more > $L/cub_more.log 2>&1
fi
step end
