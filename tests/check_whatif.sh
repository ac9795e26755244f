#!/bin/sh
# A what-if file: 'base SCENARIO', 'variant NEW like OLD [kernel VERSION|FILE]', then 'drop FN ACT
# [ARG]', 'replace FN ACT [ARG]' ... 'end' and 'insert before|after FN ACT [ARG]' ... 'end' (issue 16).
# page_fault.scn's page_fault3_noprefetch is written out by hand as page_fault3_vma_lock without
# the fault entry's prefetchw: the same variant derived in three lines must give the same bytes;
# a replace or insert must give the bytes of page_fault.scn edited by hand at that step.
#   check_whatif.sh MMSIM WORKDIR
set -u
mmsim=$1
dir=$2
src=$(cd "$(dirname "$0")/.." && pwd)
case $mmsim in /*) ;; *) mmsim=$PWD/$mmsim ;; esac
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
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
run="--machine icelake-48c --tasks 1,6 --events 30000 --format csv"
"$mmsim" $run --scenario "$dir/nopf.scn:pf3_noprefetch" >"$dir/derived.csv" || fail "the what-if does not run"
"$mmsim" $run --scenario page_fault3_noprefetch >"$dir/builtin.csv" || fail "page_fault3_noprefetch does not run"
cmp "$dir/derived.csv" "$dir/builtin.csv" || fail "derived and hand-written variants differ"
# without the drop it is page_fault3_vma_lock under 6.16, which differs (the prefetch is modelled)
sed '/^drop/d' "$dir/nopf.scn" >"$dir/same.scn"
"$mmsim" $run --scenario "$dir/same.scn:pf3_noprefetch" >"$dir/same.csv" || fail "the what-if without drop"
cmp -s "$dir/same.csv" "$dir/builtin.csv" && fail "dropping the prefetchw changed nothing"
# the base's own variants stay, and A/B is one command
"$mmsim" --machine icelake-48c --tasks 1,6 --events 30000 \
	--scenario "$dir/nopf.scn:page_fault3_vma_lock,$dir/nopf.scn:pf3_noprefetch" >"$dir/ab.txt" ||
	fail "A/B of the base variant and the what-if"
grep -q "^pf3_noprefetch over page_fault3_vma_lock" "$dir/ab.txt" || fail "no gain table"

# replace: page_fault.scn with the fault entry's prefetchw (its one line) replaced by hand, against
# the same edit as a block; its variant page_fault3_vma_lock against the derived one
edit_pf() { # edit_pf OUT LINE...: page_fault.scn with LINEs instead of the prefetchw's
	out=$1
	shift
	printf '%s\n' "$@" >"$out.lines"
	awk -v f="$out.lines" '$1 == "do_user_addr_fault" && $2 == "prefetchw" {
		while ((getline l <f) > 0) print l; n++; next } { print } END { exit n != 1 }' \
		"$src/scenarios/page_fault.scn" >"$out" || fail "page_fault.scn has not one prefetchw line"
}
pf=do_user_addr_fault
edit_pf "$dir/hand.scn" "  $pf load mm.mmap_lock.count" "  repeat 2" "    $pf prefetchw mm.mmap_lock.count" "  end"
"$mmsim" $run --scenario "$dir/hand.scn:page_fault3_vma_lock" >"$dir/hand.csv" || fail "the hand-edited page_fault.scn"
cat >"$dir/replace.scn" <<SCN
base page_fault
variant pf3_load like page_fault3_vma_lock "page_fault3_vma_lock with a load and two prefetchw at fault entry"
replace $pf prefetchw mm.mmap_lock.count
  $pf load mm.mmap_lock.count
  repeat 2
    $pf prefetchw mm.mmap_lock.count
  end
end
variant pf3_load2 like pf3_load "pf3_load again: a variant like a derived one has its edits"
SCN
"$mmsim" $run --scenario "$dir/replace.scn:pf3_load" >"$dir/replace.csv" || fail "the replace does not run"
cmp "$dir/replace.csv" "$dir/hand.csv" || fail "replace and the hand-edited scenario differ"
cmp -s "$dir/replace.csv" "$dir/same.csv" && fail "the replace changed nothing"
"$mmsim" $run --scenario "$dir/replace.scn:pf3_load2" >"$dir/replace2.csv" || fail "a variant like pf3_load"
cmp "$dir/replace2.csv" "$dir/hand.csv" || fail "a variant like a replaced one lost the replace"
# a step replaced by itself is the variant it is like (the block goes where the step was), and by
# nothing it is a drop: page_fault3_noprefetch again
printf '%s\n' "base page_fault" 'variant pf3 like page_fault3_vma_lock kernel 6.16 "t"' \
	"replace $pf prefetchw" "  $pf prefetchw mm.mmap_lock.count" "end" >"$dir/self.scn"
"$mmsim" $run --scenario "$dir/self.scn:pf3" >"$dir/self.csv" || fail "a step replaced by itself"
cmp "$dir/self.csv" "$dir/same.csv" || fail "a step replaced by itself moved or changed"
printf '%s\n' "base page_fault" 'variant pf3 like page_fault3_vma_lock kernel 6.16 "t"' \
	"replace $pf prefetchw mm.mmap_lock.count" "end" >"$dir/empty.scn"
"$mmsim" $run --scenario "$dir/empty.scn:pf3" >"$dir/empty.csv" || fail "an empty replace"
cmp "$dir/empty.csv" "$dir/builtin.csv" || fail "an empty replace is not page_fault3_noprefetch"
# seed 002's patch, scenarios/whatif/has_pinned_check.scn: one replace makes pin_fast.scn's
# hand-written has_pinned_check of has_pinned_write
pin="--machine amd-2s-128c --tasks 1,64 --events 30000 --format csv"
"$mmsim" $pin --scenario "$src/scenarios/whatif/has_pinned_check.scn:pin_check" >"$dir/pin.csv" ||
	fail "scenarios/whatif/has_pinned_check.scn does not run"
"$mmsim" $pin --scenario has_pinned_check >"$dir/pin_builtin.csv" || fail "has_pinned_check does not run"
cmp "$dir/pin.csv" "$dir/pin_builtin.csv" || fail "the example what-if is not has_pinned_check"
# insert before and after, in the order of their lines
edit_pf "$dir/hand2.scn" "  $pf load mm.mmap_lock.count" "  $pf prefetchw mm.mmap_lock.count" "  repeat 2" \
	"    $pf prefetchw mm.mmap_lock.count" "  end"
"$mmsim" $run --scenario "$dir/hand2.scn:page_fault3_vma_lock" >"$dir/hand2.csv" || fail "hand2.scn"
cat >"$dir/insert.scn" <<SCN
base page_fault
variant pf3_around like page_fault3_vma_lock "a load before the prefetchw, two more after"
insert before $pf prefetchw mm.mmap_lock.count
  $pf load mm.mmap_lock.count
end
insert after $pf prefetchw
  repeat 2
    $pf prefetchw mm.mmap_lock.count
  end
end
SCN
"$mmsim" $run --scenario "$dir/insert.scn:pf3_around" >"$dir/insert.csv" || fail "the inserts do not run"
cmp "$dir/insert.csv" "$dir/hand2.csv" || fail "insert and the hand-edited scenario differ"

# kernel FILE: relative to the scenario file's directory, not the cwd.  A copy of linux-6.8 gives
# page_fault3_vma_lock's bytes; with a cost changed, another curve; a variant like it keeps it.
mkdir -p "$dir/wi" "$dir/elsewhere" || exit 1
cp "$src/data/kernels/linux-6.8.conf" "$dir/wi/k68.conf" || exit 1
cp "$dir/wi/k68.conf" "$dir/wi/k68_slow.conf" || exit 1
printf '\n[costs]\n# [assumed] a what-if: twice 6.6'"'"'s\nfault_entry_exit = 900\n' >>"$dir/wi/k68_slow.conf"
cat >"$dir/wi/kf.scn" <<'SCN'
base page_fault
variant pf3_k68 like page_fault3_vma_lock kernel k68.conf "page_fault3_vma_lock under a copy of linux-6.8"
variant pf3_slow like page_fault3_vma_lock kernel ./k68_slow.conf "and with fault_entry_exit doubled"
variant pf3_slow2 like pf3_slow "pf3_slow again"
SCN
"$mmsim" $run --scenario page_fault3_vma_lock >"$dir/pf3.csv" || fail "page_fault3_vma_lock"
for v in pf3_k68 pf3_slow pf3_slow2; do
	(cd "$dir/elsewhere" && "$mmsim" $run --scenario "../wi/kf.scn:$v" >"../$v.csv") || fail "kernel FILE: $v"
done
cmp "$dir/pf3_k68.csv" "$dir/pf3.csv" || fail "a copy of linux-6.8 gives another curve"
cmp -s "$dir/pf3_slow.csv" "$dir/pf3.csv" && fail "the changed kernel profile changed nothing"
cmp "$dir/pf3_slow2.csv" "$dir/pf3_slow.csv" || fail "a variant like pf3_slow has another kernel"

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
like='variant x like page_fault3_vma_lock "t"'
refused "bad.scn:3:1: no step 'do_user_addr_fault load mm.mmap_lock.count' in variant x to replace" \
	"base page_fault" "$like" "replace $pf load mm.mmap_lock.count" "  $pf fence" "end"
refused "bad.scn:3:1: no step 'do_user_addr_fault fence' in variant x to insert after" \
	"base page_fault" "$like" "insert after $pf fence" "  $pf fence" "end"
refused "bad.scn:5:1: step 'fn load f' is in variant x 2 times \\(lines 9 and 10\\); 'replace' edits one" \
	"scenario s" "field f scope mm" 'variant a kernel 6.8 "A"' 'variant x like a "X"' "replace fn load f" "  fn store f" "end" "begin" "  fn load f" "  fn load f"
refused "bad.scn:3:1: 'replace' is never closed \\(expected 'end'" \
	"base page_fault" "$like" "replace $pf prefetchw" "  repeat 2" "    $pf fence" "  end"
refused "bad.scn:5:1: 'replace' inside the 'replace' of line 3" \
	"base page_fault" "$like" "replace $pf prefetchw" "  $pf fence" "replace $pf fence" "end" "end"
refused "bad.scn:5:1: 'variant' inside the 'insert' of line 3" \
	"base page_fault" "$like" "insert before $pf prefetchw" "  $pf fence" "$like"
refused "bad.scn:5:22: unknown action 'frob'" \
	"base page_fault" "$like" "replace $pf prefetchw" "  $pf fence" "  $pf frob" "end"
refused "bad.scn:4:27: unknown field 'mm.nosuch'" \
	"base page_fault" "$like" "replace $pf prefetchw" "  $pf load mm.nosuch" "end"
refused "bad.scn:4:3: a 'when' or 'only' that leaves out variant x, which the 'replace' of line 3 edits" \
	"base page_fault" "$like" "replace $pf prefetchw" "  $pf fence when page_fault3_vma_lock" "end"
refused "bad.scn:2:1: 'replace' follows a 'variant NEW like OLD' line" "base page_fault" "replace $pf prefetchw" "end"
refused "bad.scn:3:8: expected 'before' or 'after' after 'insert'" \
	"base page_fault" "$like" "insert $pf prefetchw" "end"
refused "bad.scn:4:1: the 'insert' of line 3 has no steps" "base page_fault" "$like" "insert after $pf prefetchw" "end"
# a kernel FILE that is not there: the line and column of the word, and the path it resolved to
refused "bad.scn:2:44: kernel profile '$dir/nosuch.conf': cannot open: No such file or directory" \
	"base page_fault" 'variant x like page_fault3_vma_lock kernel nosuch.conf "t"'
refused "bad.scn:2:44: kernel profile '$dir/wi/' is a directory" \
	"base page_fault" 'variant x like page_fault3_vma_lock kernel wi/ "t"'
echo "ok"
