#!/bin/sh
# Writes data/reference/pin_fast.csv: seed 002's published numbers beside mmsim's predictions.
# Usage: scripts/reproduce_pin_fast.sh [path/to/mmsim] > data/reference/pin_fast.csv
set -e
mmsim=${1:-build/src/mmsim}
point() { "$mmsim" --machine amd-2s-128c --scenario "$1" --tasks 256 --format csv | tail -1 | cut -d, -f4; }
idle() { "$mmsim" --machine amd-2s-128c --scenario "$1" --tasks 256 --format csv | tail -1 | cut -d, -f5; }
w=$(point has_pinned_write); c=$(point has_pinned_check)
wi=$(idle has_pinned_write); ci=$(idle has_pinned_check)
cat <<EOT
# Seed 002 (../shared/seeds/002_c31b0e572d3ad862.txt, "[PATCH 2/3] mm: gup: allow FOLL_PIN to scale in SMP",
# Andrea Arcangeli / Peter Xu, 2021-05-06): will-it-scale pin_fast, 256 threads, 2-node AMD, threads mode.
# measured: averages of 3 runs as published (25641/25652/25559 and 1196513/1194664/1193194 ops/s).
# predicted: mmsim $("$mmsim" --version | cut -d' ' -f2) --machine amd-2s-128c --scenario VARIANT --tasks 256 --format csv
# (profiles data/machines/amd-2s-128c.conf, data/kernels/linux-5.11.conf; seed 1).
# role: "fitted" = the one point used to set kernel cost gup_fast_walk (linux-5.11.conf says so);
# "prediction" = not used to set any number.  Regenerate with scripts/reproduce_pin_fast.sh.
metric,tasks,measured,predicted,error_pct,role
has_pinned_write ops/s,256,25617,$w,$(echo "$w 25617" | awk '{printf "%.1f", 100*($1-$2)/$2}'),prediction
has_pinned_check ops/s,256,1194790,$c,$(echo "$c 1194790" | awk '{printf "%.1f", 100*($1-$2)/$2}'),fitted
check/write ratio,256,46.6,$(echo "$c $w" | awk '{printf "%.1f", $1/$2}'),$(echo "$c $w" | awk '{printf "%.1f", 100*($1/$2-46.64)/46.64}'),prediction
has_pinned_write threads_idle %,256,0.17,$wi,,prediction
has_pinned_check threads_idle %,256,0.19,$ci,,prediction
EOT
