#!/bin/sh
# cmake --install puts mmsim on PATH with what it runs (issue 16): PREFIX/bin/mmsim works from any
# directory, and finds validate's benchmarks and calibrate's mmsim-measure where it looks.
#   check_install.sh CMAKE BUILD_DIR PREFIX
set -u
cmake=$1
build=$2
prefix=$3
fail() {
	echo "FAIL: $*"
	exit 1
}
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install failed"
[ -x "$prefix/bin/mmsim" ] || fail "no $prefix/bin/mmsim"
for exe in validate/wis_page_fault1 validate/wis_mmap1 validate/check_independent calibrate/mmsim-measure; do
	[ -x "$prefix/libexec/mmsim/$exe" ] || fail "no $prefix/libexec/mmsim/$exe"
done
cd / || exit 1
out=$(PATH="$prefix/bin:$PATH" mmsim --cores 8 --scenario has_pinned_write --tasks 1,2 --events 20000) ||
	fail "the installed mmsim does not run"
printf '%s\n' "$out" | grep -q '^has_pinned_write ' || fail "no curve: $out"
# the path validate would run (it prints it when it cannot run it; here it can)
PATH="$prefix/bin:$PATH" mmsim list | grep -q '^machines:' || fail "mmsim list"
echo "ok"
