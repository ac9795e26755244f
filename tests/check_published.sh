#!/bin/sh
# mmsim reproduce published: (1) on a synthetic suite whose "measured" values are mmsim's own
# predictions, every error figure is zero and every pair's direction agrees; (2) malformed suites
# are refused with the file and line; (3) the built-in suite runs and accounts for every published
# value of data/reference/published/points.csv, simulated or skipped with a reason.
#   check_published.sh MMSIM SOURCE_DIR
set -u
mmsim=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmsim-published.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
mk_points() { # header, then one row per "id tasks variant value"
	echo "id,benchmark,mode,tasks,machine,cpu_model,sockets,cores_total,threads_total,kernel_or_patch,variant,metric,value,unit,source"
	while read -r id t v x; do
		echo "$id,synthetic,thread,$t,m,c,2,32,64,k,$v,total ops,$x,ops/s,test"
	done
}
cat > "$tmp/curves.csv" <<'CSV'
# a before/after pair on the generic machine
curve,rows,variant,metric,machine,kernel,scenario,mode,placement,predict,scale,before,skip
a,S-t,before,total ops,generic,linux-6.6,page_fault4_mmap_lock,threads,wis,ops,1,,
b,S-t,after,total ops,generic,linux-6.6,page_fault4_vma_lock,threads,wis,ops,1,a,
i,S-t,before,system idle %,generic,linux-6.6,page_fault4_mmap_lock,threads,wis,idle,1,,
CSV
for v in before after; do for t in 1 2 4 8 16; do echo "S-t$t $t $v 1"; done; done > "$tmp/rows"
mk_points < "$tmp/rows" > "$tmp/points.csv"
# the idle curve needs its own rows: same ids and variant, another metric
for t in 1 2 4 8 16; do echo "S-t$t,synthetic,thread,$t,m,c,2,32,64,k,before,system idle %,50,%,test"; done >> "$tmp/points.csv"
first=$("$mmsim" reproduce published --measured-dir "$tmp" --format csv --events 20000 2>/dev/null) ||
	{ echo "FAIL: the synthetic suite does not run"; exit 1; }
# measured := predicted, and run again
printf '%s\n' "$first" | awk -F, '$1 == "point" { print $3, $4, ($2 == "b" ? "after" : "before"), $12, $2 }' |
	awk '{ m = ($5 == "i") ? "system idle %" : "total ops"; u = ($5 == "i") ? "%" : "ops/s";
	       printf "%s,synthetic,thread,%s,m,c,2,32,64,k,%s,%s,%s,%s,test\n", $1, $2, $3, m, $4, u }' > "$tmp/p2"
{ echo "id,benchmark,mode,tasks,machine,cpu_model,sockets,cores_total,threads_total,kernel_or_patch,variant,metric,value,unit,source"; cat "$tmp/p2"; } > "$tmp/points.csv"
second=$("$mmsim" reproduce published --measured-dir "$tmp" --format csv --events 20000 2>/dev/null) ||
	{ echo "FAIL: the synthetic suite (measured = predicted) does not run"; exit 1; }
printf '%s\n' "$second" | awk -F, '
	function near0(name, v) { ok = v + 0 < 0.01 && v + 0 > -0.01; printf "%s %s = %s (expected 0)\n", ok ? "ok:  " : "FAIL:", name, v; if (!ok) bad = 1 }
	$1 == "point" && $13 != "-" { near0("error of " $2 " at " $4, $13) }
	$1 == "point" && $14 != "-" { near0("shape error of " $2 " at " $4, $14) }
	$1 == "pair" { near0("pair ratio error at " $4, $13); if ($17 != 1) { print "FAIL: pair direction at " $4; bad = 1 } }
	$1 == "summary" && $2 == "pairs_direction_pct" { if ($11 != 100) { print "FAIL: direction " $11 "%"; bad = 1 } }
	$1 == "summary" && $2 == "idle_within_10_points_pct" { if ($11 != 100) { print "FAIL: idle " $11 "%"; bad = 1 } }
	END { exit bad }' || fail=1
[ "$(printf '%s\n' "$second" | grep -c '^pair,')" = 5 ] || { echo "FAIL: expected 5 pair rows"; fail=1; }
[ "$(printf '%s\n' "$second" | grep -c '^point,')" = 15 ] || { echo "FAIL: expected 15 point rows"; fail=1; }

# --seeds 2: each prediction the mean of seed 1's and seed 2's
s1=$("$mmsim" reproduce published --measured-dir "$tmp" --format csv --events 20000 --seed 1 2>/dev/null)
s2=$("$mmsim" reproduce published --measured-dir "$tmp" --format csv --events 20000 --seed 2 2>/dev/null)
s12=$("$mmsim" reproduce published --measured-dir "$tmp" --format csv --events 20000 --seed 1 --seeds 2 2>/dev/null) ||
	{ echo "FAIL: --seeds 2 does not run"; fail=1; }
{ printf '%s\n' "$s1" | sed 's/^/A,/'; printf '%s\n' "$s2" | sed 's/^/B,/'; printf '%s\n' "$s12" | sed 's/^/M,/'; } |
	awk -F, '$2 == "point" { v[$1, $3, $5] = $13; n[$1]++ }
	END {
		for (k in v) {
			split(k, a, SUBSEP)
			if (a[1] != "M") continue
			want = (v["A", a[2], a[3]] + v["B", a[2], a[3]]) / 2
			if (want == 0 || (v[k] - want) / want > 1e-5 || (want - v[k]) / want > 1e-5) {
				printf "FAIL: --seeds 2 at %s %s: %s, the seeds'"'"' mean %s\n", a[2], a[3], v[k], want; bad = 1
			}
			m++
		}
		for (k in v) {
			split(k, a, SUBSEP)
			if (a[1] == "A" && v[k] != v["B", a[2], a[3]]) differ++
		}
		if (m != 15 || n["A"] != 15) { print "FAIL: --seeds 2: " m " points"; bad = 1 }
		if (!differ) { print "FAIL: --seeds 2: seeds 1 and 2 predict alike, the mean checks nothing"; bad = 1 }
		if (!bad) print "ok:   --seeds 2: each of the 15 predictions is the two seeds'"'"' mean"
		exit bad
	}' || fail=1

# --plot DIR: one PNG per throughput curve; an existing plot is not overwritten without --force, and
# that is known before anything is simulated; a file is not a directory
if command -v gnuplot > /dev/null; then
	"$mmsim" reproduce published --measured-dir "$tmp" --events 20000 --plot "$tmp/plots" > /dev/null 2>&1 &&
		[ -s "$tmp/plots/a.png" ] && [ -s "$tmp/plots/b.png" ] && [ ! -e "$tmp/plots/i.png" ] &&
		echo "ok:   --plot DIR drew a.png and b.png (no plot of the idle curve)" ||
		{ echo "FAIL: --plot DIR did not draw a.png and b.png alone"; fail=1; }
	out=$("$mmsim" reproduce published --measured-dir "$tmp" --events 20000 --plot "$tmp/plots" 2>&1) &&
		{ echo "FAIL: an existing plot was overwritten without --force"; fail=1; }
	printf '%s\n' "$out" | grep -q "a.png exists: not overwritten" && ! printf '%s\n' "$out" | grep -q "simulations" &&
		echo "ok:   an existing plot is refused before anything is simulated" ||
		{ echo "FAIL: existing plot: '$out'"; fail=1; }
	"$mmsim" reproduce published --measured-dir "$tmp" --events 20000 --plot "$tmp/plots" --force > /dev/null 2>&1 ||
		{ echo "FAIL: --force does not replace the plots"; fail=1; }
	# the plots are a set: when the second fails (a stand-in gnuplot that fails from its second
	# run), the first is not left either, nor the staging directory, nor a directory mmsim made
	mkdir -p "$tmp/bin" "$tmp/keep"
	real=$(command -v gnuplot)
	cat >"$tmp/bin/gnuplot" <<EOS
#!/bin/sh
n=\$(cat "$tmp/bin/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$tmp/bin/count"
[ "\$n" -ge 1 ] && exit 1
exec "$real" "\$@"
EOS
	chmod +x "$tmp/bin/gnuplot"
	echo "mine" >"$tmp/keep/notes.txt"
	for d in "$tmp/made" "$tmp/keep"; do
		rm -f "$tmp/bin/count"
		PATH="$tmp/bin:$PATH" "$mmsim" reproduce published --measured-dir "$tmp" --events 20000 --plot "$d" \
			> /dev/null 2>"$tmp/err" && { echo "FAIL: a failed plot was not an error"; fail=1; }
		if [ "$d" = "$tmp/made" ]; then left=$(ls -A "$d" 2>/dev/null; [ -e "$d" ] && echo "(the directory)"); else
			left=$(ls -A "$d" | grep -v '^notes.txt$'); fi
		[ -z "$left" ] && grep -q "gnuplot failed" "$tmp/err" &&
			echo "ok:   --plot ${d##*/}: the second plot failed, nothing of the set left" ||
			{ echo "FAIL: --plot ${d##*/} after a failed plot: left '$left', $(tail -1 "$tmp/err")"; fail=1; }
	done
	# --force replaces plots, but not a directory where one would go: refused before any plot is
	# moved, so the user's other plot is still theirs
	mkdir -p "$tmp/forced/b.png"
	echo "old" >"$tmp/forced/a.png"
	out=$("$mmsim" reproduce published --measured-dir "$tmp" --events 20000 --plot "$tmp/forced" --force 2>&1) &&
		{ echo "FAIL: --force over a directory b.png accepted"; fail=1; }
	printf '%s\n' "$out" | grep -q "forced/b.png: not a file, cannot be replaced" &&
		[ "$(cat "$tmp/forced/a.png")" = old ] && [ -z "$(ls -A "$tmp/forced" | grep -v '^a.png$' | grep -v '^b.png$')" ] &&
		echo "ok:   --force over a directory: refused, the other plot kept" ||
		{ echo "FAIL: --force over a directory: '$(printf '%s\n' "$out" | tail -1)', a.png: $(head -c 20 "$tmp/forced/a.png")"; fail=1; }
	# a curve id that cannot name a file in DIR ('/' in it): refused before anything is simulated
	mkdir -p "$tmp/slash"
	cp "$tmp/points.csv" "$tmp/slash/"
	sed 's|^a,|sub/a,|; s|,a,$|,sub/a,|' "$tmp/curves.csv" >"$tmp/slash/curves.csv"
	out=$("$mmsim" reproduce published --measured-dir "$tmp/slash" --events 20000 --plot "$tmp/slash/plots" 2>&1) &&
		{ echo "FAIL: a curve id with '/' accepted for --plot"; fail=1; }
	printf '%s\n' "$out" | grep -q "curve 'sub/a' cannot name a file in it" &&
		! printf '%s\n' "$out" | grep -q "simulations" && echo "ok:   --plot: a curve id with '/' refused first" ||
		{ echo "FAIL: a curve id with '/': '$out'"; fail=1; }
else
	echo "skipped: --plot checks (no gnuplot)"
fi
# a --plot DIR that cannot be made is refused before anything is simulated (it was after)
out=$("$mmsim" reproduce published --measured-dir "$tmp" --plot "$tmp/no/such/dir" 2>&1) &&
	{ echo "FAIL: --plot in a missing directory accepted"; fail=1; }
printf '%s\n' "$out" | grep -q "no directory $tmp/no/such to make it in" &&
	! printf '%s\n' "$out" | grep -q "simulations" && echo "ok:   --plot DIR that cannot be made: refused first" ||
	{ echo "FAIL: --plot in a missing directory: '$out'"; fail=1; }
out=$("$mmsim" reproduce published --measured-dir "$tmp" --plot "$tmp/curves.csv" 2>&1) &&
	{ echo "FAIL: --plot FILE accepted"; fail=1; }
printf '%s\n' "$out" | grep -q "curves.csv: not a directory" && echo "ok:   --plot FILE refused" ||
	{ echo "FAIL: --plot FILE: '$out'"; fail=1; }

# a [fitted] entry of a machine file that names row S-t16: that row (and not S-t1, whose id begins
# it) is marked fitted and left out, and the entry is listed once with its row
awk '{ print } /^\[cpu\]/ { print "# [fitted] a test: fitted to S-t16"; print "cost_scale = 1.5" }' \
	"$src/data/machines/generic.conf" > "$tmp/fit.conf"
mkdir -p "$tmp/fit"
{ echo "curve,rows,variant,metric,machine,kernel,scenario,mode,placement,predict,scale,before,skip"
  echo "f,S-t,before,total ops,$tmp/fit.conf,linux-6.6,page_fault4_mmap_lock,threads,wis,ops,1,,"; } > "$tmp/fit/curves.csv"
for t in 1 16; do echo "S-t$t $t before 1"; done | mk_points > "$tmp/fit/points.csv"
out=$("$mmsim" reproduce published --measured-dir "$tmp/fit" --format csv --events 20000 2>/dev/null) ||
	{ echo "FAIL: the suite with a fitted number does not run"; fail=1; }
printf '%s\n' "$out" | awk -F, '
	$1 == "point" { fit[$3] = $17 }
	$1 == "fitted" { n++; rows = $3; what = $10 }
	END {
		ok = fit["S-t16"] == 1 && fit["S-t1"] == 0 && n == 1 && rows == "\"S-t16\"" &&
		     what == "\"[cpu] cost_scale = 1.5\""
		printf "%s a fitted number: S-t16 fitted %s, S-t1 %s, %d fitted row(s), rows %s, %s\n",
		       ok ? "ok:  " : "FAIL:", fit["S-t16"], fit["S-t1"], n, rows, what
		exit !ok
	}' || fail=1

# more [fitted] entries than a page holds: every entry of a machine file (past [machine]) fitted,
# the first to all eight rows of a curve whose ids are long (over 300 characters together), the
# others to one row each: every row is left out, and every entry listed with all its rows
long=S-a-row-id-long-enough-to-fill-a-fixed-buffer-t
awk -v long="$long" '
	/^\[/ { sec = $0 }
	/^# \[(assumed|derived|measured)\]/ && sec != "[machine]" {
		n++
		if (n == 1) { printf "# [fitted] a test: fitted to"; for (t = 1; t <= 8; t++) printf " %s%d", long, t; print "" }
		else printf "# [fitted] a test: fitted to %s%d\n", long, (n % 8) + 1
		next
	}
	{ print }' "$src/data/machines/generic.conf" > "$tmp/fit2.conf"
nfit=$(grep -c '^# \[fitted\]' "$tmp/fit2.conf")
mkdir -p "$tmp/fit2"
{ echo "curve,rows,variant,metric,machine,kernel,scenario,mode,placement,predict,scale,before,skip"
  echo "g,$long,before,total ops,$tmp/fit2.conf,linux-6.6,mmap1,threads,wis,ops,1,,"; } > "$tmp/fit2/curves.csv"
for t in 1 2 3 4 5 6 7 8; do echo "$long$t $t before 1"; done | mk_points > "$tmp/fit2/points.csv"
out=$("$mmsim" reproduce published --measured-dir "$tmp/fit2" --format csv --events 20000 2>/dev/null) ||
	{ echo "FAIL: the suite with $nfit fitted numbers does not run"; fail=1; }
printf '%s\n' "$out" | awk -F, -v nfit="$nfit" -v long="$long" '
	$1 == "point" { np++; nf += $17 == 1 }
	$1 == "fitted" { n++; if ($3 ~ long "8" && $3 ~ long "1 ") all = 1 }
	END {
		ok = np == 8 && nf == 8 && n == nfit && nfit > 16 && all
		printf "%s %d fitted numbers listed of %d, %d of %d rows left out, one entry with all 8 rows: %s\n",
		       ok ? "ok:  " : "FAIL:", n, nfit, nf, np, all ? "yes" : "no"
		exit !ok
	}' || fail=1

# a large suite: 66 curves of 16 points (1056 points, 1040 of them in 65 before/after pairs) that
# share 16 simulations: every point and every pair point is counted in the summary
mkdir -p "$tmp/big"
{ echo "curve,rows,variant,metric,machine,kernel,scenario,mode,placement,predict,scale,before,skip"
  for i in $(seq 0 65); do
	echo "c$i,B$i-t,v,total ops,generic,linux-6.6,mmap1,threads,wis,ops,1,$([ "$i" = 0 ] || echo c0),"
  done; } > "$tmp/big/curves.csv"
for i in $(seq 0 65); do for t in $(seq 16); do echo "B$i-t$t $t v 1"; done; done | mk_points > "$tmp/big/points.csv"
out=$("$mmsim" reproduce published --measured-dir "$tmp/big" --format csv --events 5000 2>/dev/null) ||
	{ echo "FAIL: a suite of 1056 points does not run"; fail=1; }
printf '%s\n' "$out" | awk -F, '
	$1 == "summary" && $2 == "absolute_median_error_pct" { nabs = $4 }
	$1 == "summary" && $2 == "pairs_direction_pct" { npair = $4 }
	END {
		ok = nabs == 1056 && npair == 1040
		printf "%s a suite of 1056 points: %s counted in the absolute error, %s pair points\n",
		       ok ? "ok:  " : "FAIL:", nabs, npair
		exit !ok
	}' || fail=1

# malformed suites: the message names the file and line
expect_err() { # what, pattern
	if out=$("$mmsim" reproduce published --measured-dir "$tmp" --events 20000 2>&1); then
		echo "FAIL: $1: accepted"; fail=1
	elif printf '%s\n' "$out" | grep -q -- "$2"; then
		echo "ok:   $1 refused: $(printf '%s\n' "$out" | tail -1)"
	else
		echo "FAIL: $1: message '$out' lacks '$2'"; fail=1
	fi
}
cp "$tmp/points.csv" "$tmp/points.good"
echo "X-t4,synthetic,thread,4,m,c,2,32,64,k,before,total ops,1,ops/s,test" >> "$tmp/points.csv"
expect_err "a row of no curve" "points.csv:17: row X-t4 (before, total ops) belongs to no curve"
cp "$tmp/points.good" "$tmp/points.csv"
echo "S-t3,synthetic,thread,three,m,c,2,32,64,k,before,total ops,1,ops/s,test" >> "$tmp/points.csv"
expect_err "a task count that is not a number" "points.csv:17: tasks 'three'"
# min/mean/max: three numbers, in that order (min and max were not read before)
for v in 1/x/3 3/2/1 1/2/2.5x 1/2 1/2/3/4 /2/3; do
	cp "$tmp/points.good" "$tmp/points.csv"
	echo "S-t3,synthetic,thread,3,m,c,2,32,64,k,before,total ops,$v,ops/s,test" >> "$tmp/points.csv"
	expect_err "a value $v" "points.csv:17: value '$v': expected a number or min/mean/max (min <= mean <= max)"
done
cp "$tmp/points.good" "$tmp/points.csv"
cp "$tmp/curves.csv" "$tmp/curves.good"
echo "c,S-t,before,total ops,generic,linux-6.6,mmap1,threads,wis,ops,1,," >> "$tmp/curves.csv"
expect_err "a row of two curves" "belongs to two curves, a and c"
cp "$tmp/curves.good" "$tmp/curves.csv"
echo "d,D-t,x,total ops,generic,linux-6.6,mmap1,sideways,wis,ops,1,," >> "$tmp/curves.csv"
expect_err "a bad mode" "curves.csv:6: mode 'sideways': expected threads or processes"
cp "$tmp/curves.good" "$tmp/curves.csv"
echo "d,D-t,x,total ops,generic,linux-6.6,mmap1,threads,wis,ops,1,nosuch," >> "$tmp/curves.csv"
expect_err "an unknown before curve" "curves.csv:6: before 'nosuch': no such curve"
cp "$tmp/curves.good" "$tmp/curves.csv"
echo "d,D-t,x,total ops,generic,linux-6.6,mmap1,threads,wis,ops,1," >> "$tmp/curves.csv"
expect_err "a short line" "curves.csv:6: expected 13 fields, found 12"
# a scale with more after the number: refused, not read as its first number
cp "$tmp/curves.good" "$tmp/curves.csv"
echo "d,D-t,x,total ops,generic,linux-6.6,mmap1,threads,wis,ops,1/2,," >> "$tmp/curves.csv"
expect_err "a scale of 1/2" "curves.csv:6: scale '1/2': expected a number > 0"
# a machine path longer than the field holds: refused, not cut (a cut path opens another file)
cp "$tmp/curves.good" "$tmp/curves.csv"
deep=$tmp/$(printf 'd%.0s' $(seq 1030))/m.conf
echo "d,D-t,x,total ops,$deep,linux-6.6,mmap1,threads,wis,ops,1,," >> "$tmp/curves.csv"
expect_err "an overlong machine path" "curves.csv:6: machine '.*': longer than 1023 characters"
# a line longer than the reader holds: refused, not cut
cp "$tmp/curves.good" "$tmp/curves.csv"
echo "d,D-t,x,total ops,generic,linux-6.6,mmap1,threads,wis,ops,1,,$(printf 'r%.0s' $(seq 2100))" >> "$tmp/curves.csv"
expect_err "an overlong line" "curves.csv:6: a line of more than 2047 characters"
cp "$tmp/curves.good" "$tmp/curves.csv"
rm "$tmp/points.csv"
expect_err "a missing file" "points.csv: cannot open: No such file or directory"

# the built-in suite: every published value is in a point row or a skipped curve's count
out=$("$mmsim" reproduce published --format csv --events 20000 2>/dev/null) ||
	{ echo "FAIL: mmsim reproduce published failed"; exit 1; }
n=$(grep -v '^#' "$src/data/reference/published/points.csv" | tail -n +2 | grep -c .)
m=$(printf '%s\n' "$out" | awk -F, '$1 == "point" && $3 !~ /^\(/ { n++ } $1 == "skipped" { n += $4 } END { print n + 0 }')
[ "$n" = "$m" ] && echo "ok:   the built-in suite accounts for all $n published values" ||
	{ echo "FAIL: points.csv has $n values, the output accounts for $m"; fail=1; }
for s in pairs_direction_pct absolute_median_error_pct shape_median_error_pct idle_within_10_points_pct; do
	printf '%s\n' "$out" | grep -q "^summary,$s," || { echo "FAIL: no summary row $s"; fail=1; }
done
exit $fail
