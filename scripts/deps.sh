#!/bin/sh
# Installs what mmsim needs to build, test and plot on Debian 12 (run as root).
set -e
export DEBIAN_FRONTEND=noninteractive
pkgs="build-essential cmake pkg-config libhwloc-dev hwloc libinih-dev libgsl-dev libcmocka-dev gnuplot-nox"
# clang-format: the format test; clang, its libFuzzer and sanitizer runtimes, libomp: the fuzz smoke
pkgs="$pkgs clang-format clang libclang-rt-dev libomp-dev"
# parallel: the sweep test runs the points of mmsim sweep --emit-jobs with GNU parallel
pkgs="$pkgs parallel"
# libbpf-dev: mmsim layout reads BTF; dwarves (pahole): the layout test checks it against pahole
pkgs="$pkgs libbpf-dev dwarves"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
fi
echo "deps: ok ($pkgs)"
