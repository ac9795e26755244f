# Shared by paper/gen-*.awk: LaTeX-safe text, numbers as the paper prints them, macro lines.
function tex(s) {
	gsub(/\\/, "\\textbackslash{}", s)
	gsub(/[_%&#$]/, "\\\\&", s)
	gsub(/"/, "", s)
	gsub(/--/, "-{}-", s)	# not an en dash
	return s
}
# 1234567 -> 1{,}234{,}567; below 1000: three significant digits
function num(x,    s, neg, i, r) {
	x += 0
	if (x >= 1000 || x <= -1000) {
		neg = x < 0; if (neg) x = -x
		s = sprintf("%.0f", x); r = ""
		while (length(s) > 3) { r = "{,}" substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
		return (neg ? "-" : "") s r
	}
	if (x == int(x)) return sprintf("%d", x)
	s = sprintf("%.3g", x)
	if (s ~ /e/) s = sprintf("%.2g", x)
	return s
}
function pct(x) { return sprintf("%.1f", x + 0) }
function spct(x) { return sprintf("%+.1f", x + 0) }
function mac(name, value) { printf "\\newcommand{\\%s}{%s}\n", name, value }
# the median of a[1..n] (sorted in place)
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	if (n == 0) return "nan"
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function abs(x) { return x < 0 ? -x : x }
