#!/bin/sh
# A what-if file: 'base SCENARIO', 'variant NEW like OLD', 'drop FN ACT [ARG]' (issue 16).
# page_fault.scn's page_fault3_noprefetch is written out by hand as page_fault3_vma_lock without
# the fault entry's prefetchw: the same variant derived in three lines must give the same bytes.
#   check_whatif.sh MMSIM WORKDIR
set -u
mmsim=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail() {
	echo "FAIL: $*"
	exit 1
}
cat >"$dir/nopf.scn" <<'SCN'
base page_fault
variant pf3_noprefetch like page_fault3_vma_lock kernel 6.16 "page_fault3_vma_lock without prefetchw(&mm->mmap_lock)"
drop do_user_addr_fault prefetchw mm.mmap_lock.count
SCN
run="--machine icelake-48c --tasks 1,24 --events 30000 --format csv"
"$mmsim" $run --scenario "$dir/nopf.scn:pf3_noprefetch" >"$dir/derived.csv" || fail "the what-if does not run"
"$mmsim" $run --scenario page_fault3_noprefetch >"$dir/builtin.csv" || fail "page_fault3_noprefetch does not run"
cmp "$dir/derived.csv" "$dir/builtin.csv" || fail "derived and hand-written variants differ"
# without the drop it is page_fault3_vma_lock under 6.16, which differs (the prefetch is modelled)
sed '/^drop/d' "$dir/nopf.scn" >"$dir/same.scn"
"$mmsim" $run --scenario "$dir/same.scn:pf3_noprefetch" >"$dir/same.csv" || fail "the what-if without drop"
cmp -s "$dir/same.csv" "$dir/builtin.csv" && fail "dropping the prefetchw changed nothing"
# the base's own variants stay, and A/B is one command
"$mmsim" --machine icelake-48c --tasks 1,24 --events 30000 \
	--scenario "$dir/nopf.scn:page_fault3_vma_lock,$dir/nopf.scn:pf3_noprefetch" >"$dir/ab.txt" ||
	fail "A/B of the base variant and the what-if"
grep -q "^pf3_noprefetch over page_fault3_vma_lock" "$dir/ab.txt" || fail "no gain table"

# errors: FILE:LINE:COL, a non-zero exit, nothing on stdout
refused() {
	pat=$1
	shift
	printf '%s\n' "$@" >"$dir/bad.scn"
	"$mmsim" --machine icelake-48c --tasks 1 --scenario "$dir/bad.scn" >"$dir/out" 2>"$dir/err"
	rc=$?
	cat "$dir/err"
	[ $rc -ge 1 ] && [ $rc -le 125 ] || fail "exit status $rc for: $*"
	[ -s "$dir/out" ] && fail "wrote to stdout for: $*"
	grep -E -q -e "$pat" "$dir/err" || fail "expected '$pat' for: $*"
}
refused "bad.scn:3:1: no step 'do_user_addr_fault load mm.mmap_lock.count' in variant x to drop" \
	"base page_fault" 'variant x like page_fault3_vma_lock "t"' "drop do_user_addr_fault load mm.mmap_lock.count"
refused "bad.scn:2:1: 'drop' follows a 'variant NEW like OLD' line" "base page_fault" "drop f load x"
refused "bad.scn:1:6: 'page_fault4_vma_lock' is a variant: 'base' takes a scenario" "base page_fault4_vma_lock"
refused "bad.scn:2:1: unknown keyword 'field' in a file with 'base'" "base page_fault" "field f scope mm"
refused "bad.scn:2:1: a file with 'base' declares 'variant NEW like OLD" "base page_fault" 'variant y kernel 6.6 "t"'
refused "bad.scn:2:16: unknown variant 'nosuch'" "base page_fault" 'variant x like nosuch "t"'
refused "bad.scn:1:6: bases nested deeper than 4" "base $dir/bad.scn"
echo "ok"
