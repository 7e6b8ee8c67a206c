# chart.gp — the token benchmark's chart: context tokens per question, naive tool chain vs SQL code
# mode, log scale. Called by report.mjs: gnuplot -e "data='FILE'; out='PNG'" chart.gp
# data: one line per question: label, naive tokens, code-mode tokens, ratio (tab separated).
set terminal pngcairo size 1000,520 font "DejaVu Sans,10" noenhanced
set output out
set datafile separator "\t"
set title "Context tokens per question (o200k_base): naive tool chain vs SQL code mode"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 10
set yrange [1000:*]
set ytics ("1k" 1e3, "10k" 1e4, "100k" 1e5, "1M" 1e6, "10M" 1e7)
set ylabel "tokens in the model's context (log scale)"
set grid ytics
set key top right
plot data using 2:xtic(1) title "naive: curated list/get tools, paged" lc rgb "#c0504d", \
     ''   using 3 title "code mode: prompt + validate_code + execute_code" lc rgb "#4f81bd", \
     ''   using 0:($2*1.35):(sprintf("x%.0f", $4)) with labels notitle offset -1.5,0
