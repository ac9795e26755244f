#!/bin/sh
# What --plot draws, read from the gnuplot script mmsim writes, and the tables' plain numbers.
#   check_plot.sh MMSIM WORKDIR ratio|measured|published|table|truncated
# A stand-in gnuplot (first on PATH) keeps each script and its data in WORKDIR/keep, then runs
# the real gnuplot when there is one (the PNG must then be a PNG, not empty) or writes a
# placeholder image (the checks of the script still run; the PNG checks say they were skipped).
# ratio:     two curves with --seeds 3: a second panel (multiplot) of B / A, its y axis labelled,
#            a y = 1 line, the seeds' spread as a band with min <= B / A <= max at every count;
#            a tick at every task count; every predicted point marked; the legend below the plot.
# measured:  compare --measured: the measured points drawn with their own symbol and a legend
#            entry "measured threads".
# published: reproduce published --plot on a two-curve suite: "measured threads" and "measured
#            processes", each with its symbol; its table prints 1234567, not 1.23457e+06.
# table:     a run's table (ops/s over a million, --seeds, the gain table, --sensitivity) has no
#            number in exponent notation.
# truncated: a PNG gnuplot left cut (a full disk; it exits 0) is an error, and no file is left.
set -u
mmsim=$1
dir=$2
what=$3
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
ok() {
	echo "ok:   $*"
}
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/tmp" "$dir/keep" || exit 1
real=$(command -v gnuplot || true)
cat >"$dir/bin/gnuplot" <<EOS
#!/bin/sh
# keep the script and its data, named after the plot (its side file, less the .tmp-XXXXXX)
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
name=\$(basename "\$out" | sed 's/\\.tmp-.*//')
cp "\$1" "$dir/keep/\$name.gp"
cp "$dir"/tmp/mmsim-plot-*.dat "$dir/keep/\$name.dat"
if [ -n "$real" ]; then
	exec "$real" "\$1"
fi
# a placeholder that ends as a PNG does (mmsim checks for the IEND chunk)
printf 'placeholder\\0\\0\\0\\0IEND\\256\\102\\140\\202' >"\$out"
EOS
chmod +x "$dir/bin/gnuplot"
run() { # mmsim ARGS..., with the stand-in gnuplot
	PATH="$dir/bin:$PATH" TMPDIR="$dir/tmp" "$mmsim" "$@"
}
# check_png FILE: a PNG when the real gnuplot drew it
check_png() {
	if [ -z "$real" ]; then
		echo "skipped: $1 is a placeholder (no gnuplot on PATH: the script was checked, not drawn)"
	elif [ -s "$1" ] && [ "$(od -An -c -j1 -N3 "$1" | tr -d ' ')" = PNG ]; then
		ok "$1 is a PNG of $(wc -c <"$1") bytes"
	else
		bad "$1 is not a PNG"
	fi
}
# has FILE PATTERN WHAT: a line of FILE matches the grep -E PATTERN
has() {
	if grep -E -q -e "$2" "$1"; then
		ok "$3"
	else
		bad "$3: no line of $1 matches '$2'"
	fi
}

case $what in
ratio)
	run --machine icelake-48c --scenario page_fault4_mmap_lock,page_fault4_vma_lock --tasks 1,2,4,8,24 \
		--events 20000 --seeds 3 --plot "$dir/two.png" >"$dir/stdout" 2>&1 || {
		cat "$dir/stdout"
		bad "the two-curve plot failed"
		exit 1
	}
	gp=$dir/keep/two.png.gp
	dat=$dir/keep/two.png.dat
	has "$gp" "^set multiplot" "a second panel (multiplot)"
	has "$gp" "^set ylabel 'B / A'" "the ratio panel's y axis is labelled B / A"
	has "$gp" "^set title 'B / A = page_fault4_vma_lock over page_fault4_mmap_lock" "the ratio panel says which is B and A"
	has "$gp" "^ *1 with lines .*title 'B / A = 1" "a y = 1 reference line"
	has "$gp" "filledcurves.*title 'shaded: min-max over seeds 1-3'" "the seeds' spread as a band"
	has "$gp" '^set xtics \("1" 1, "2" 2, "4" 4, "8" 8, "24" 24\)$' "a tick at each task count, labelled"
	has "$gp" "^set key below" "the legend below the plot"
	n=$(grep -c "with linespoints .*pt [0-9]" "$gp")
	[ "$n" -ge 3 ] && ok "every curve drawn with a symbol at each point ($n)" ||
		bad "expected the two curves and the ratio with linespoints and a point type, got $n"
	# the ratio blocks: 5 points each; the band's min <= the ratio <= its max
	awk '
		/^#/ { blk = $0 ~ / over .* threads seeds$/ ? "band" : $0 ~ / over .* threads$/ ? "ratio" : ""; next }
		NF == 0 { blk = ""; next }
		blk == "band" { lo[$1] = $2; hi[$1] = $3; nb++ }
		blk == "ratio" { g[$1] = $2; nr++ }
		END {
			if (nb != 5 || nr != 5) { printf "FAIL: expected 5 band and 5 ratio points, got %d and %d\n", nb, nr; exit 1 }
			for (t in g) if (!(lo[t] <= g[t] && g[t] <= hi[t])) { printf "FAIL: at %s tasks B / A %s is outside the seeds band [%s, %s]\n", t, g[t], lo[t], hi[t]; exit 1 }
			print "ok:   the ratio panel: 5 points, each within its seeds band"
		}' "$dat" || fail=1
	# the ratios drawn are the gain table's (printed to 3 decimals)
	awk '
		FNR == 1 { file++ }
		file == 1 && / over / { on = 1; next }
		file == 1 && on && $1 ~ /^[0-9]+$/ { table[$1] = $2; nt++ }
		file == 2 && /^# .* over .* threads$/ { blk = 1; next }
		file == 2 && (NF == 0 || /^#/) { blk = 0; next }
		file == 2 && blk { drawn[$1] = $2; nd++ }
		END {
			if (!nt || nt != nd) { printf "FAIL: %d ratios in the gain table, %d drawn\n", nt, nd; exit 1 }
			for (t in table) if (!(t in drawn) || drawn[t] - table[t] > 0.0006 || table[t] - drawn[t] > 0.0006) {
				printf "FAIL: at %s tasks the table says %s, the panel draws %s\n", t, table[t], drawn[t]; exit 1 }
			print "ok:   the panel draws the gain table'"'"'s ratios"
		}' "$dir/stdout" "$dat" || fail=1
	check_png "$dir/two.png"
	# one curve: no second panel
	run --machine icelake-48c --scenario page_fault4_vma_lock --tasks 1,8 --events 20000 \
		--plot "$dir/one.png" >/dev/null 2>&1 || bad "the one-curve plot failed"
	grep -q multiplot "$dir/keep/one.png.gp" && bad "one curve has a ratio panel" || ok "one curve: one panel"
	;;
measured)
	cat >"$dir/wis.csv" <<'CSV'
# made by hand for a test: runtest.py's format
tasks,processes,processes_idle,threads,threads_idle,linear
0,0,100,0,100,0
1,0,0.00,10000,87.50,10000
2,0,0.00,20000,75.00,20000
4,0,0.00,10000,50.00,40000
CSV
	run compare --measured "$dir/wis.csv" --machine nehalem-i7-920 --scenario has_pinned_write \
		--plot "$dir/cmp.png" >"$dir/stdout" 2>&1 || {
		cat "$dir/stdout"
		bad "compare --plot failed"
		exit 1
	}
	gp=$dir/keep/cmp.png.gp
	has "$gp" "with points pt 9 .*title 'measured threads'" "the measured points: their own symbol and legend entry"
	has "$gp" "with linespoints .*pt 6 .*title 'has_pinned_write \(threads\)'" "the prediction: open circles"
	has "$gp" '^set xtics \("1" 1, "2" 2, "4" 4\)$' "a tick at each measured task count"
	check_png "$dir/cmp.png"
	;;
published)
	cat >"$dir/curves.csv" <<'CSV'
# a threads and a processes curve on the generic machine, for the plot's symbols
curve,rows,variant,metric,machine,kernel,scenario,mode,placement,predict,scale,before,skip
t,S-t,v,total ops,generic,linux-6.6,page_fault4_mmap_lock,threads,wis,ops,1,,
p,S-p,v,total ops,generic,linux-6.6,page_fault4_mmap_lock,processes,wis,ops,1,,
CSV
	{
		echo "id,benchmark,mode,tasks,machine,cpu_model,sockets,cores_total,threads_total,kernel_or_patch,variant,metric,value,unit,source"
		for t in 1 2 4 8; do
			echo "S-t$t,synthetic,thread,$t,m,c,2,32,64,k,v,total ops,1234567,ops/s,test"
			echo "S-p$t,synthetic,process,$t,m,c,2,32,64,k,v,total ops,2345678,ops/s,test"
		done
	} >"$dir/points.csv"
	run reproduce published --measured-dir "$dir" --events 20000 --plot "$dir/plots" >"$dir/stdout" 2>&1 || {
		cat "$dir/stdout"
		bad "reproduce published --plot failed"
		exit 1
	}
	has "$dir/keep/t.png.gp" "pt 9 .*title 'measured threads'" "published threads: filled triangles, 'measured threads'"
	has "$dir/keep/p.png.gp" "pt 13 .*title 'measured processes'" "published processes: filled diamonds, 'measured processes'"
	has "$dir/keep/t.png.gp" "pt 6 .*title 'mmsim \(threads\)'" "the prediction: open circles"
	has "$dir/keep/t.png.gp" '^set xtics \("1" 1, "2" 2, "4" 4, "8" 8\)$' "a tick at each task count"
	has "$dir/stdout" "^  S-t8 +8 +1234567 +[0-9]+ " "the table prints 1234567 as it is"
	if grep -E -q "[0-9]e[+-][0-9]" "$dir/stdout"; then
		bad "a number in exponent notation: $(grep -E "[0-9]e[+-][0-9]" "$dir/stdout" | head -1)"
	else
		ok "no number in exponent notation in the published table"
	fi
	check_png "$dir/plots/t.png"
	;;
table)
	# ops/s over a million and the gain table at 192 CPUs; the sensitivity table (its runs: each
	# unmeasured number twice, per curve and seed) on a 16-CPU machine
	{
		"$mmsim" --cores 192 --scenario has_pinned_write,has_pinned_check --tasks 1,192 --events 20000 \
			--seeds 2 && "$mmsim" --cores 16 --scenario has_pinned_write,has_pinned_check --tasks 1,16 \
			--events 20000 --seeds 2 --sensitivity
	} >"$dir/stdout" 2>&1 || {
		cat "$dir/stdout"
		bad "the run failed"
		exit 1
	}
	has "$dir/stdout" "^ +192 +[0-9]{7,} " "ops/s over a million, as digits"
	has "$dir/stdout" "^has_pinned_check over has_pinned_write" "the gain table"
	has "$dir/stdout" "^sensitivity at 16 tasks" "the sensitivity table"
	if grep -E -q "[0-9]e[+-][0-9]" "$dir/stdout"; then
		bad "a number in exponent notation: $(grep -E "[0-9]e[+-][0-9]" "$dir/stdout" | head -1)"
	else
		ok "no number in exponent notation in the tables"
	fi
	;;
truncated)
	# gnuplot exits 0 on a full disk, leaving the PNG cut: a stand-in that writes the start of a
	# PNG and exits 0 must make mmsim fail and leave no file (the code before kept the cut one)
	cat >"$dir/bin/gnuplot" <<EOS
#!/bin/sh
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\rIHDR' >"\$out"
EOS
	if run --cores 4 --scenario has_pinned_write --tasks 1,2 --events 20000 --plot "$dir/cut.png" \
		>"$dir/stdout" 2>&1; then
		bad "a cut PNG was accepted: $(tail -1 "$dir/stdout")"
	else
		has "$dir/stdout" "gnuplot left it incomplete" "a cut PNG is an error: $(tail -1 "$dir/stdout")"
	fi
	if ls "$dir"/cut.png* >/dev/null 2>&1; then bad "left behind: $(ls "$dir"/cut.png*)"; else ok "no file left"; fi
	;;
*)
	echo "usage: check_plot.sh MMSIM WORKDIR ratio|measured|published|table|truncated"
	exit 2
	;;
esac
exit $fail
