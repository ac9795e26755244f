# The paper's figures from the data files paper/gen-published.awk wrote into dir (gnuplot -e "dir='...'").
# Each curve-NAME.dat: tasks measured predicted usl_predicted (nan where the USL was fitted).
set terminal pdfcairo size 7in,5in font "Helvetica,9"
set output dir.'/fig-curves.pdf'
set datafile missing 'nan'
set key below font ",7" samplen 2 maxrows 2
unset xlabel	# tasks: the caption says so (a label would sit under the key)
set multiplot layout 2,3
f(c) = dir.'/curve-'.c.'.dat'
# one curve: measured (points), mmsim (line), USL fitted on N <= max/4 (dashed)
set title 'R630 page\_fault3, processes (5.13)' font ",8"
set ylabel 'ops/s'
plot f('r630-pf3-p') u 1:2 w p pt 7 lc rgb 'black' t 'measured', \
     '' u 1:3 w lp pt 6 lc rgb 'blue' t 'mmsim', \
     '' u 1:4 w lp dt 2 pt 4 lc rgb 'dark-green' t 'USL'
set title 'R630 mmap1, threads (5.13)'
plot f('r630-mmap1-t') u 1:2 w p pt 7 lc rgb 'black' t 'measured', \
     '' u 1:3 w lp pt 6 lc rgb 'blue' t 'mmsim', \
     '' u 1:4 w lp dt 2 pt 4 lc rgb 'dark-green' t 'USL'
set title 'Skylake rwsem locktest, 50% readers (v8-14)'
set ylabel 'locking rate'
plot f('skl-micro') u 1:2 w p pt 7 lc rgb 'black' t 'measured', \
     '' u 1:3 w lp pt 6 lc rgb 'blue' t 'mmsim', \
     '' u 1:4 w lp dt 2 pt 4 lc rgb 'dark-green' t 'USL'
# before/after pairs: before in black/blue, after in grey/red
set title 'Ice Lake pft: mmap\_lock vs per-VMA locks (6.2)'
set ylabel 'faults/s'
plot f('icx-pft') u 1:2 w p pt 7 lc rgb 'black' t 'before, measured', \
     '' u 1:3 w lp pt 6 lc rgb 'blue' t 'before, mmsim', \
     f('icx-pft-pvl') u 1:2 w p pt 5 lc rgb 'gray50' t 'after, measured', \
     '' u 1:3 w lp pt 4 lc rgb 'red' t 'after, mmsim'
set title 'Ivy Bridge-EX locktest: wake all readers (v8-09/10)'
set ylabel 'locking rate'
set logscale y
plot f('ivb-wakeall') u 1:2 w p pt 7 lc rgb 'black' t 'before, measured', \
     '' u 1:3 w lp pt 6 lc rgb 'blue' t 'before, mmsim', \
     f('ivb-wakeall-after') u 1:2 w p pt 5 lc rgb 'gray50' t 'after, measured', \
     '' u 1:3 w lp pt 4 lc rgb 'red' t 'after, mmsim'
unset logscale y
set title 'Skylake page\_fault1: reader spinning (v8-10/14)'
set ylabel 'operations'
plot f('skl-pf1-norspin') u 1:2 w p pt 7 lc rgb 'black' t 'before, measured', \
     '' u 1:3 w lp pt 6 lc rgb 'blue' t 'before, mmsim', \
     f('skl-pf1-rspin') u 1:2 w p pt 5 lc rgb 'gray50' t 'after, measured', \
     '' u 1:3 w lp pt 4 lc rgb 'red' t 'after, mmsim'
unset multiplot

set terminal pdfcairo size 3.4in,3.1in font "Helvetica,9"
set output dir.'/fig-scatter.pdf'
unset title
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xlabel 'measured (the curve''s own unit)'
set ylabel 'mmsim'
set key inside bottom right vertical maxrows auto font ",8" box opaque
set size square
plot x w l lc rgb 'black' t 'exact', 2*x w l dt 2 lc rgb 'gray40' t '2x', x/2 w l dt 2 lc rgb 'gray40' notitle, \
     dir.'/scatter-t.dat' u 1:2 w p pt 6 ps 0.6 lc rgb 'blue' t 'threads', \
     dir.'/scatter-p.dat' u 1:2 w p pt 4 ps 0.6 lc rgb 'red' t 'processes'
