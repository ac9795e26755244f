#!/bin/sh
# mmsim layout from the command line (issue 17):
#   check_layout.sh MMSIM BTFGEN WORKDIR
# 1. pahole: on this machine's BTF, every member `pahole -C S` prints (name, offset, size) is a
#    field of `mmsim layout --depth 16 S` with the same last name, offset and size (skipped,
#    saying why, without pahole or /sys/kernel/btf/vmlinux);
# 2. synthetic BTF (btfgen: A has mmap_lock.count @184, line 2, owner line 3; B moves mmap_lock to
#    @104, line 1, drops mm_lock_seq, moves vm_flags to line 1): the table, --diff A B,
#    --emit-profile from A accepted by --kernel, and its lines;
# 3. errors: a truncated or text file, a missing file or struct, a field the BTF lacks under
#    --scenario, an existing -o: non-zero, a message naming what, and no file written.
set -u
mmsim=$1
btfgen=$2
dir=$3
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
ok() {
	echo "ok:   $*"
}
rm -rf "$dir"
mkdir -p "$dir" || exit 1
"$btfgen" "$dir/a.btf" "$dir/b.btf" || exit 1

# ---- 1. against pahole -------------------------------------------------------------------
sys=/sys/kernel/btf/vmlinux
if ! command -v pahole >/dev/null 2>&1; then
	echo "skipped: the pahole comparison (no pahole; scripts/deps.sh installs dwarves)"
elif [ ! -r "$sys" ]; then
	echo "skipped: the pahole comparison (no readable $sys on this machine)"
else
	for s in mm_struct vm_area_struct rw_semaphore percpu_counter; do
		pahole -C "$s" "$sys" 2>/dev/null >"$dir/pahole.$s" || true
		if [ ! -s "$dir/pahole.$s" ]; then
			echo "skipped: pahole has no $s here"
			continue
		fi
		"$mmsim" layout --depth 16 "$s" >"$dir/mmsim.$s" || {
			bad "mmsim layout $s failed"
			continue
		}
		# pahole: "TYPE NAME[N]; /* OFFSET SIZE */" (bitfields "/* OFF: BIT SIZE */" left out)
		sed -n 's/^[[:space:]].*[[:space:]*]\([A-Za-z_][A-Za-z0-9_]*\)\(\[[0-9]*\]\)*;[[:space:]]*\/\*[[:space:]]*\([0-9][0-9]*\)[[:space:]][[:space:]]*\([0-9][0-9]*\)[[:space:]]*\*\/.*$/\1 \3 \4/p' \
			"$dir/pahole.$s" >"$dir/want.$s"
		# mmsim: "OFFSET SIZE LINE PATH TYPE": the path's last name
		awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n = $4; sub(/.*\./, "", n); sub(/\[[0-9]+\]$/, "", n); print n, $1, $2 }' \
			"$dir/mmsim.$s" | sort -u >"$dir/have.$s"
		n=$(wc -l <"$dir/want.$s")
		missing=$(sort -u "$dir/want.$s" | comm -23 - "$dir/have.$s")
		if [ "$n" -lt 3 ]; then
			bad "pahole $s: only $n members read from its output"
		elif [ -n "$missing" ]; then
			bad "$s: pahole's members not in mmsim layout (name offset size): $(echo "$missing" | head -5 | tr '\n' ';')"
		else
			ok "$s: all $n members pahole prints agree on offset and size"
		fi
	done
fi

# ---- 2. synthetic BTF ------------------------------------------------------------------------
out=$("$mmsim" layout --btf "$dir/a.btf" mm_struct) || bad "layout --btf a.btf mm_struct failed"
echo "$out" | grep -Eq '^ +184 +8 +2 +mmap_lock\.count ' && ok "A: mmap_lock.count @184 line 2" ||
	bad "A: mmap_lock.count not at 184 line 2: $(echo "$out" | grep mmap_lock.count)"
echo "$out" | grep -q 'hole: 24 bytes' && ok "A: the hole before mm_lock_seq" || bad "A: no 24-byte hole"
d=$("$mmsim" layout --diff "$dir/a.btf" "$dir/b.btf") || bad "--diff failed"
for f in 'mm.mmap_lock.count +mmap_lock.count @184 line 2 +mmap_lock.count @104 line 1' \
	'mm.mm_lock_seq +mm_lock_seq @248 line 3 +\(not in mm_struct\)' 'vma.vm_flags +vm_flags @32 line 0 +vm_flags @80 line 1'; do
	echo "$d" | grep -Eq "^  $f" && ok "diff: $f" || bad "diff lacks: $f"
done
echo "$d" | grep -q 'mm.pgtables_bytes' && bad "diff lists pgtables_bytes, which did not move" || ok "diff: unmoved fields left out"
prof="$dir/a.conf"
"$mmsim" layout --btf "$dir/a.btf" --emit-profile --base linux-6.8 -o "$prof" 2>"$dir/emit.err" ||
	bad "--emit-profile from A failed: $(cat "$dir/emit.err")"
grep -qx 'mm.mmap_lock.count = mm.line2' "$prof" && grep -qx 'mm.mmap_lock.owner = mm.line3' "$prof" &&
	grep -qx 'vma.vm_flags = vma.line0' "$prof" && ok "emitted: count line 2, owner line 3, vm_flags line 0" ||
	bad "emitted profile's lines: $(grep '= mm.line\|= vma.line' "$prof" | tr '\n' ';')"
grep -q '^# \[derived\] BTF .*a.btf: mm_struct.mmap_lock.count @184' "$prof" && ok "emitted: provenance names the BTF" ||
	bad "emitted: no provenance line for mmap_lock.count"
grep -q '^# not in this BTF: mm.vmacache_seqnum' "$prof" && ok "emitted: a field the BTF lacks is a comment" ||
	bad "emitted: vmacache_seqnum not listed as missing"
"$mmsim" --kernel "$prof" --scenario page_fault4_mmap_lock --tasks 2 --format csv >"$dir/run.csv" 2>"$dir/run.err" &&
	ok "--kernel takes the emitted profile" || bad "--kernel refused it: $(cat "$dir/run.err")"

# --move / --pad (the struct laid out again): a move that changes nothing gives the same profile on
# this machine's BTF (the layout recomputed from sizes and alignments is the kernel's own); on A,
# mmap_lock to a line of its own lands at 384 (test_layout.c works the offsets out)
if [ -r "$sys" ]; then
	"$mmsim" layout --emit-profile >"$dir/nomove.conf" 2>/dev/null
	"$mmsim" layout --emit-profile --move mm.map_count=after:mm.pgtables_bytes 2>/dev/null | grep -v '^# what-if' >"$dir/noop.conf"
	cmp -s "$dir/nomove.conf" "$dir/noop.conf" && ok "a move that changes nothing: the same profile (relayout = the kernel's)" ||
		bad "a no-op move changed the profile: $(diff "$dir/nomove.conf" "$dir/noop.conf" | head -4 | tr '\n' ';')"
fi
"$mmsim" layout --btf "$dir/a.btf" --emit-profile --move mm.mmap_lock=own-line >"$dir/moved.conf" 2>"$dir/err" ||
	bad "--move own-line failed: $(cat "$dir/err")"
grep -qx 'mm.mmap_lock.count = mm.line6' "$dir/moved.conf" && grep -q '^# what-if: --move mm.mmap_lock=own-line' "$dir/moved.conf" &&
	ok "--move mm.mmap_lock=own-line: count on line 6, the what-if stated" || bad "--move own-line: $(grep mmap_lock.count "$dir/moved.conf")"
for m in "mm.mmap_lock" "mm.mmap_lock=elsewhere" "mm.no_such=own-line" "mm.mm_users=offset:101" "zone.lock=own-line"; do
	"$mmsim" layout --btf "$dir/a.btf" --emit-profile --move "$m" -o "$dir/m.conf" 2>"$dir/err" && bad "--move $m accepted" ||
		{ grep -q -- "--move '$m'" "$dir/err" && [ ! -e "$dir/m.conf" ] && ok "--move $m refused: $(head -c 90 "$dir/err")" ||
			bad "--move $m: $(cat "$dir/err")"; }
done

# a --pad field name longer than its buffer: refused whole, not cut to another name
long=mm.$(printf 'f%.0s' $(seq 200))
"$mmsim" layout --btf "$dir/a.btf" --emit-profile --pad "$long" -o "$dir/m.conf" 2>"$dir/err" && bad "--pad of 203 characters accepted" ||
	{ grep -q -- "--pad $long: a field name of more than 195 characters" "$dir/err" && [ ! -e "$dir/m.conf" ] &&
		ok "--pad of 203 characters refused" || bad "--pad of 203 characters: $(cat "$dir/err")"; }

# ---- 3. errors ------------------------------------------------------------------------------------
head -c 40 "$dir/a.btf" >"$dir/short.btf"
echo "not BTF" >"$dir/text.btf"
for f in short.btf text.btf missing.btf; do
	if "$mmsim" layout --btf "$dir/$f" --emit-profile -o "$dir/x.conf" 2>"$dir/err"; then
		bad "$f accepted"
	elif ! grep -q "$dir/$f" "$dir/err"; then
		bad "$f: the message does not name it: $(cat "$dir/err")"
	elif [ -e "$dir/x.conf" ] || ls "$dir"/x.conf.tmp-* >/dev/null 2>&1; then
		bad "$f: a profile was written"
	else
		ok "$f refused: $(head -c 100 "$dir/err")"
	fi
done
"$mmsim" layout --btf "$dir/a.btf" zone 2>"$dir/err" && bad "a missing struct accepted" ||
	{ grep -q "'zone'" "$dir/err" && ok "missing struct named" || bad "missing struct: $(cat "$dir/err")"; }
"$mmsim" layout --btf "$dir/b.btf" --emit-profile --scenario page_fault4_mmap_lock -o "$dir/b.conf" 2>"$dir/err" &&
	bad "B under --scenario page_fault4_mmap_lock accepted (it has no mm_lock_seq)" ||
	{ grep -q "mm.mm_lock_seq: struct mm_struct has no member 'mm_lock_seq'" "$dir/err" && [ ! -e "$dir/b.conf" ] &&
		ok "a scenario's field the BTF lacks: refused, named, nothing written" || bad "B --scenario: $(cat "$dir/err")"; }
cp "$prof" "$dir/keep.conf"
"$mmsim" layout --btf "$dir/b.btf" --emit-profile -o "$prof" 2>"$dir/err" && bad "an existing -o replaced" ||
	{ cmp -s "$prof" "$dir/keep.conf" && ok "an existing -o refused and kept" || bad "existing -o changed"; }
"$mmsim" layout --bogus 2>/dev/null
[ $? -eq 2 ] && ok "unknown option: exit 2" || bad "unknown option: not exit 2"
exit $fail
