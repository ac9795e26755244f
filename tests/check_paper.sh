#!/bin/sh
# The paper's two rules (paper/mmsim.tex):
#   check_paper.sh lint SOURCE_DIR
#       no results paragraph (\begin{results} ... \end{results}) has a literal number: results are
#       quoted only through paper/generate.sh's \G... macros, in digits or in words ("one" aside);
#       citations, references, labels, \rel{release} and \Seed{NNN} names aside.  Also checks that
#       the lint catches a planted number.
#   check_paper.sh generate SOURCE_DIR MMSIM BENCH SEEDS_CSV OUTDIR
#       paper/generate.sh --quick writes every macro the text uses, every table it inputs and
#       every figure it includes.
set -u
what=$1
src=$2
tex=$src/paper/mmsim.tex

# prints "LINE: TEXT" for each results line that keeps a digit once the allowed commands are gone
lint() {
	awk '
	{ line = $0; sub(/(^|[^\\])%.*/, "", line) }	# a comment (not \%)
	line ~ /\\begin\{results\}/ { inres = 1 }
	inres {
		s = line
		gsub(/\\(cite|ref|label|rel|Seed|input|includegraphics|begin|end)(\[[^]]*\])?\{[^}]*\}/, "", s)
		gsub(/\\G[A-Za-z]+/, "", s)
		if (s ~ /[0-9]/) { printf "%d: %s\n", NR, $0; bad = 1 }
		# a number written as a word ("one" aside: an article as often as a number)
		else if (tolower(s) ~ /(^|[^a-z])(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty|hundred|thousand|million|half|quarter|third|twice|double|triple|dozen)([^a-z]|$)/) {
			printf "%d: %s (a number in words)\n", NR, $0; bad = 1
		}
	}
	line ~ /\\end\{results\}/ { inres = 0 }
	END { exit bad }' "$1"
}

# every \G macro of text $1 is defined in $2/macros.tex, every gen/ file it reads is in $2
check_macros() {
	fail=0
	# the macros the text uses (comments left out): \G, a capital, letters
	for m in $(sed 's/\(^\|[^\\]\)%.*//' "$1" | grep -o '\\G[A-Z][A-Za-z]*' | sort -u); do
		grep -q "^\\\\newcommand{\\$m}" "$2/macros.tex" || { echo "FAIL: $1 uses $m, which generate.sh does not define"; fail=1; }
	done
	for f in $(grep -o '{gen/[^}]*}' "$1" | tr -d '{}' | sort -u); do
		[ -s "$2/${f#gen/}" ] || { echo "FAIL: $1 reads $f, which generate.sh did not write"; fail=1; }
	done
	# a macro with no value means a figure the generator could not find in mmsim's output
	if grep -q '^\\newcommand{\\G[A-Za-z]*}{}$' "$2/macros.tex"; then
		grep '^\\newcommand{\\G[A-Za-z]*}{}$' "$2/macros.tex" | grep -v GGenMode && { echo "FAIL: empty macros above"; fail=1; }
	fi
	return $fail
}

case $what in
lint)
	out=$(lint "$tex") || { echo "FAIL: a literal number in a results paragraph of $tex (use a macro of paper/generate.sh):"; printf '%s\n' "$out"; exit 1; }
	n=$(grep -c '\\begin{results}' "$tex")
	[ "$n" -ge 5 ] || { echo "FAIL: only $n results paragraphs in $tex: the lint checks nothing"; exit 1; }
	# the lint must catch what it is for
	t=$(mktemp)
	trap 'rm -f "$t"' EXIT
	printf '%s\n' '\begin{results}' 'mmsim is 42\% off (\GPAbsErr, \cite{seed002}).' '\end{results}' >"$t"
	if lint "$t" >/dev/null; then echo "FAIL: the lint let a planted '42' through"; exit 1; fi
	printf '%s\n' '\begin{results}' 'mmsim is off by half.' '\end{results}' >"$t"
	if lint "$t" >/dev/null; then echo "FAIL: the lint let a planted 'half' through"; exit 1; fi
	printf '%s\n' '\begin{results}' 'mmsim is \GPAbsErr\% off \cite{seed002} (Table~\ref{tab:x}, \rel{5.13}).' '\end{results}' >"$t"
	lint "$t" >/dev/null || { echo "FAIL: the lint refused a paragraph of macros, a citation, a reference and a release"; exit 1; }
	echo "ok: $n results paragraphs of $tex quote numbers only through macros"
	;;
generate)
	mmsim=$3
	bench=$4
	seeds=$5
	out=$6
	rm -rf "$out"
	sh "$src/paper/generate.sh" --quick --mmsim "$mmsim" --bench "$bench" --seeds-csv "$seeds" --out "$out" ||
		{ echo "FAIL: paper/generate.sh --quick failed"; exit 1; }
	check_macros "$tex" "$out" || exit 1
	# the check must catch what it is for: a text that uses a macro nobody defines
	t=$(mktemp)
	trap 'rm -f "$t"' EXIT
	printf '%s\n' '\begin{results}' 'mmsim is \GPAbsErr\% and \GNoSuchNumber\% off.' '\end{results}' >"$t"
	if check_macros "$t" "$out" >/dev/null; then echo "FAIL: the check let an undefined \\GNoSuchNumber through"; exit 1; fi
	echo "ok: every macro, table and figure of $tex is generated ($(grep -c newcommand "$out/macros.tex") macros)"
	exit 0
	;;
*) echo "usage: $0 lint SOURCE_DIR | generate SOURCE_DIR MMSIM BENCH SEEDS_CSV OUTDIR"; exit 2 ;;
esac
