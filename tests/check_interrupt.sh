#!/bin/sh
# An interrupted mmsim leaves nothing behind: no process and no file, half-written or whole.
#   check_interrupt.sh MMSIM WORKDIR plot|plotset|run|job SIGNAL
# plot: a stand-in gnuplot (first on PATH) that only waits; mmsim is signalled while it waits
#       for it: the stand-in must be gone, and neither the plot, its side file nor gnuplot's
#       script and data may remain.
# plotset: mmsim sweep --plot DIR of two runs, DIR made by it; a stand-in gnuplot draws the first
#       (the real gnuplot, or a placeholder PNG without one) and waits on the second, when mmsim
#       is signalled: neither DIR nor the first plot (in DIR's staging directory) may remain.
# run:  mmsim is signalled while it simulates: it must end by the signal, with no output.
# job:  mmsim sweep --job 0 --out DIR, DIR made by it, signalled while it simulates: neither the
#       point's side file nor DIR may remain.
set -u
mmsim=$1
dir=$2
what=$3
sig=$4
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/tmp" "$dir/out" || exit 1
# a background job of a script starts with SIGINT ignored, which mmsim respects (as it would
# for nohup's SIGHUP): give it the default disposition, as an interactive shell's job has
launch="env --default-signal=INT,TERM,HUP"
fail() {
	echo "FAIL: $*"
	exit 1
}
# until the stand-in gnuplot that waits has written its pid (at most 60 s, for a loaded machine)
wait_for_gnuplot() {
	i=0
	while [ ! -s "$dir/gnuplot.pid" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
if [ "$what" = plot ]; then
	cat >"$dir/bin/gnuplot" <<EOS
#!/bin/sh
echo \$\$ >"$dir/gnuplot.pid"
exec sleep 60
EOS
	chmod +x "$dir/bin/gnuplot"
	PATH="$dir/bin:$PATH" TMPDIR="$dir/tmp" $launch "$mmsim" --scenario has_pinned_write --tasks 1,2 \
		--plot "$dir/out/p.png" >"$dir/stdout" 2>&1 &
	pid=$!
	wait_for_gnuplot
	[ -s "$dir/gnuplot.pid" ] || { kill -KILL $pid; fail "the stand-in gnuplot never started"; }
	ls "$dir/tmp" "$dir/out"
	[ -n "$(ls "$dir/tmp")" ] || fail "no script in TMPDIR while gnuplot runs (test broken)"
	[ -n "$(ls "$dir/out")" ] || fail "no side file beside the plot while gnuplot runs (test broken)"
elif [ "$what" = plotset ]; then
	real=$(command -v gnuplot || true)
	cat >"$dir/bin/gnuplot" <<EOS
#!/bin/sh
if [ ! -e "$dir/first" ]; then
	: >"$dir/first"
	[ -n "$real" ] && exec "$real" "\$@"
	out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
	printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\0IEND\\256B\\140\\202' >"\$out"
	exit 0
fi
echo \$\$ >"$dir/gnuplot.pid"
exec sleep 60
EOS
	chmod +x "$dir/bin/gnuplot"
	printf 'machine generic\nscenario has_pinned_write\ntasks 1,2\nseed 1,2\n' >"$dir/s.sweep"
	PATH="$dir/bin:$PATH" TMPDIR="$dir/tmp" $launch "$mmsim" sweep "$dir/s.sweep" --plot "$dir/out/plots" \
		>"$dir/stdout" 2>&1 &
	pid=$!
	wait_for_gnuplot
	[ -s "$dir/gnuplot.pid" ] || { kill -KILL $pid; fail "the stand-in gnuplot never started a second plot"; }
	ls -AR "$dir/out"
	[ -n "$(ls "$dir"/out/plots/.mmsim-plots-*/run-1.png 2>/dev/null)" ] ||
		fail "the first plot is not in the staging directory while the second is drawn (test broken)"
elif [ "$what" = job ]; then
	printf 'machine generic\nscenario page_fault4_mmap_lock\ntasks 256\ncores 256\n' >"$dir/s.sweep"
	$launch "$mmsim" sweep "$dir/s.sweep" --job 0 --out "$dir/out/jobs" >"$dir/stdout" 2>&1 &
	pid=$!
	i=0
	while [ -z "$(ls "$dir/out/jobs" 2>/dev/null)" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$(ls "$dir/out/jobs" 2>/dev/null)" ] || fail "no side file in the job's --out DIR (test broken)"
else
	$launch "$mmsim" --cores 256 --scenario page_fault >"$dir/stdout" 2>&1 &
	pid=$!
	sleep 1.5
fi
kill -"$sig" $pid
wait $pid
rc=$?
echo "mmsim exit status after SIG$sig: $rc"
[ "$rc" -gt 128 ] || fail "mmsim did not end by the signal (status $rc)"
if [ "$what" = plot ] || [ "$what" = plotset ]; then
	gp=$(cat "$dir/gnuplot.pid")
	i=0
	while kill -0 "$gp" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$gp" 2>/dev/null && { kill -KILL "$gp"; fail "gnuplot (pid $gp) outlived mmsim"; }
	left=$(ls -A "$dir/tmp" "$dir/out" | grep -v ':$' | grep -v '^$')
	[ -z "$left" ] || fail "left behind: $left"
elif [ "$what" = job ]; then
	left=$(ls -A "$dir/out")
	[ -z "$left" ] || fail "left behind in $dir/out: $left $(ls -A "$dir/out/jobs" 2>/dev/null)"
else
	grep -q 'ops/s' "$dir/stdout" && fail "a partial result was printed"
fi
echo "ok: nothing left behind"
rm -rf "$dir"
