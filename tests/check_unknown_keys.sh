#!/bin/sh
# A misspelled key in a profile is refused (issue 16): a non-zero exit, FILE:LINE:COL, the section,
# the nearest name, and nothing on stdout; the profiles as shipped pass.
#   check_unknown_keys.sh MMSIM SOURCE_DIR WORKDIR
set -u
mmsim=$1
src=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir" || exit 1
fail() {
	echo "FAIL: $*"
	exit 1
}
# refused FILE LINE_KEY PATTERN ARGS...: mmsim ARGS fails (1..125) with nothing on stdout, and its
# message is "FILE:N:1: PATTERN" where N is the line of FILE that starts with LINE_KEY
refused() {
	f=$1 key=$2 pat=$3
	shift 3
	n=$(grep -n "^$key" "$f" | head -1 | cut -d: -f1)
	[ -n "$n" ] || fail "test broken: no line of $f starts with $key"
	"$mmsim" "$@" >"$dir/stdout" 2>"$dir/stderr"
	rc=$?
	cat "$dir/stderr"
	[ $rc -ge 1 ] && [ $rc -le 125 ] || fail "mmsim $*: exit status $rc, expected an error"
	[ -s "$dir/stdout" ] && fail "mmsim $*: wrote to stdout: $(head -3 "$dir/stdout")"
	grep -E -q -e "^mmsim: $f:$n:1: $pat" "$dir/stderr" || fail "mmsim $*: expected '$f:$n:1: $pat'"
}
passes() {
	"$mmsim" "$@" >"$dir/stdout" 2>"$dir/stderr" || { cat "$dir/stderr"; fail "mmsim $*: refused"; }
	[ -s "$dir/stdout" ] || fail "mmsim $*: no output"
}
run="--machine icelake-48c --scenario page_fault4_vma_lock --tasks 4 --events 20000"

# the issue's case: a [layout] typo left the run at the baseline
k=$dir/k.conf
sed 's/^mm\.mmap_lock\.count = /mm.mmap_lock.cuont = /' "$src/data/kernels/linux-6.6.conf" >"$k"
why="\\[layout\\] key 'mm\\.mmap_lock\\.cuont' is not a field or lock that any built-in scenario names.*"
refused "$k" mm.mmap_lock.cuont "$why\\(did you mean 'mm\\.mmap_lock\\.count'\\?\\)" $run --kernel "$k"
refused "$k" mm.mmap_lock.cuont "$why\\(did you mean 'mm\\.mmap_lock\\.count'\\?\\)" show --kernel "$k"

# one typo per kernel section: [kernel], [costs], [batch], [misses], [rwsem]
for edit in "kernel vma_lock vmalock" "costs fault_entry_exit fault_entry_exti" "batch lru_batch lru_bacth" \
	"misses user_read_page user_read_pages"; do
	set -- $edit
	sed "s/^$2 = /$3 = /" "$src/data/kernels/linux-6.6.conf" >"$k"
	refused "$k" "$3 " "\\[$1\\] key '$3' is not .*\\(did you mean '$2'\\?\\)" show --kernel "$k"
done
sed 's/^\[layout\]$/[rwsem]\nreader_spinn = 1\n[layout]/' "$src/data/kernels/linux-6.6.conf" >"$k"
refused "$k" "reader_spinn " "\\[rwsem\\] key 'reader_spinn' is not a key of the rwsem design .*\\(did you mean 'reader_spin'\\?\\)" \
	show --kernel "$k"

# one typo per machine section
m=$dir/m.conf
for edit in "machine description descripton" "latency remote remtoe" "coherence batch_limit batch_limt" \
	"bandwidth node_gbs node_gsb" "cpu wakeup_ns wakup_ns" "cache llc_mib llc_mb"; do
	set -- $edit
	sed "s/^$2 = /$3 = /" "$src/data/machines/icelake-48c.conf" >"$m"
	refused "$m" "$3 " "\\[$1\\] key '$3' is not a key of a machine profile's \\[$1\\] .*\\(did you mean '$2'\\?\\)" \
		show --machine "$m"
done

# as shipped they pass, and so does a key only the run's own scenario names
cp "$src/data/kernels/linux-6.6.conf" "$k"
passes show --kernel "$k"
passes $run --kernel "$k"
sed 's/^\[costs\]$/[costs]\n# [assumed] a cost of mine.scn alone\nmy_cost = 7/' "$src/data/kernels/linux-6.6.conf" >"$k"
printf 'scenario mine\nvariant v kernel 6.6 "test"\nfield f scope mm\nbegin\n  f load f\n  f compute my_cost\n' \
	>"$dir/mine.scn"
passes --machine icelake-48c --scenario "$dir/mine.scn" --tasks 2 --events 20000 --kernel "$k"
refused "$k" "my_cost " "\\[costs\\] key 'my_cost' is not a cost that any built-in scenario names" $run --kernel "$k"
# one kernel profile serving a built-in curve and the run's own scenario: the key counts for both
passes --machine icelake-48c --scenario "page_fault4_vma_lock,$dir/mine.scn" --tasks 2 --events 20000 --kernel "$k"
sed 's/^my_cost = /my_cots = /' "$k" >"$dir/k2.conf"
refused "$dir/k2.conf" "my_cots " "\\[costs\\] key 'my_cots' is not a cost that the scenario $dir/mine.scn or any built-in one names.*\\(did you mean 'my_cost'\\?\\)" \
	--machine icelake-48c --scenario "page_fault4_vma_lock,$dir/mine.scn" --tasks 2 --events 20000 --kernel "$dir/k2.conf"
echo "ok"
