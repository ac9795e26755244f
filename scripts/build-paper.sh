#!/bin/sh
# Builds paper/mmsim.pdf from a clean clone (Debian 12, as root for the packages):
#   1. installs what it needs when missing: mmsim's build dependencies (scripts/deps.sh) and the
#      TeX Live packages the paper uses, and poppler-utils (pdftoppm, to look at pages);
#   2. builds mmsim and mmsim-bench (cmake, build/), so a changed profile or scenario is in it;
#   3. paper/generate.sh (paper/gen/: every number, table and figure; a few minutes);
#   4. pdflatex, bibtex, pdflatex twice: paper/mmsim.pdf.
# Extra arguments go to generate.sh (e.g. --quick for a smoke build).  Not part of the tests.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export DEBIAN_FRONTEND=noninteractive
./scripts/deps.sh
tex="texlive-latex-base texlive-latex-recommended texlive-fonts-recommended poppler-utils"
missing=
for p in $tex; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "build-paper: installing$missing"
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
cmake -S . -B build >/dev/null
cmake --build build -j2 --target mmsim mmsim-bench >/dev/null
sh paper/generate.sh "$@"
cd paper
# the PDF is replaced only by a complete build; an interrupted or failed one leaves no mmsim.new.*
trap 'rm -f mmsim.new.aux mmsim.new.bbl mmsim.new.blg mmsim.new.log mmsim.new.out mmsim.new.pdf' EXIT
trap 'exit 130' INT TERM HUP
run() { pdflatex -interaction=nonstopmode -halt-on-error -jobname=mmsim.new mmsim.tex >build.log 2>&1 ||
	{ tail -30 build.log; echo "build-paper: pdflatex failed (paper/build.log)" >&2; exit 1; }; }
run
bibtex mmsim.new >/dev/null || { cat mmsim.new.blg; echo "build-paper: bibtex failed" >&2; exit 1; }
run
run
mv mmsim.new.pdf mmsim.pdf
rm -f build.log
echo "build-paper: written $root/paper/mmsim.pdf ($(pdfinfo mmsim.pdf 2>/dev/null | awk '/^Pages/ {print $2}') pages)"
