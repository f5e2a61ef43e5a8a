#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part sockopt-fuzz: SOAK_FUZZ_N malformed and mutated iptables
# sockopt requests (tests/soak/soak-tool.c fuzz, seed SOAK_SEED) against
# ip_tables, then the same requests against ebpfilter in this guest.
# Checked: the same errno class for every case (ok / refused; the exact
# errnos that differ are counted and listed), no refused request changed
# a table, every table holds the committed rules at the end, the probe's
# rules enforced every 500 cases and at the end, the helper alive (or
# restarted) and serving; the harness fails the run on any BUG/WARN/oops.
. tests/guest/ipt-lib.sh
N=${SOAK_FUZZ_N:-2000}
SEED=${SOAK_SEED:-1}
TOOL=${SOAK_TOOL:-build/tests/soak-tool}
O=$IPT_OUT/soak-fuzz
mkdir -p "$O"
[ -x "$TOOL" ] || fail "no $TOOL (make -C tests tools)"

t0=$(date +%s)
use_ip_tables
"$TOOL" fuzz "$SEED" "$N" >"$O/ip_tables" 2>"$O/ip_tables.err" ||
	note "ip_tables run: $(tail -n 3 "$O/ip_tables.err"; grep -E 'CHANGED|BROKEN|FAILED|not the' "$O/ip_tables" | head -n 3)"
cat "$O/ip_tables.err"
leave_ip_tables
t1=$(date +%s)
use_ebpfilter
"$TOOL" fuzz "$SEED" "$N" >"$O/ebpfilter" 2>"$O/ebpfilter.err"
rc=$?
cat "$O/ebpfilter.err"
t2=$(date +%s)
alive=yes
request_ok || alive=no
[ "$(helper_count)" = 1 ] || alive="no ($(helper_count) helpers)"
restarts=$(dmesg | grep -c 'ebpfilter: helper restarted')

# errno class: ok or refused
cls() { awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3, ($4 == "ok" ? "ok" : "refused") }' "$1"; }
diff <(cls "$O/ip_tables") <(cls "$O/ebpfilter") >"$O/class.diff"
class_mm=$(grep -c '^>' "$O/class.diff")
# exact errnos: case kind ip_tables-errno ebpfilter-errno
join <(awk '$1 ~ /^[0-9]+$/ { print $1, $2"/"$3, $4 }' "$O/ip_tables" | sort -k1,1) \
	<(awk '$1 ~ /^[0-9]+$/ { print $1, $4 }' "$O/ebpfilter" | sort -k1,1) |
	awk '$3 != $4' | sort -n >"$O/errno.diff"
errno_mm=$(wc -l <"$O/errno.diff")
changed=$(grep -c CHANGED "$O/ebpfilter")
broken=$(grep -c 'traffic BROKEN' "$O/ebpfilter")
checks=$(grep -c '^traffic ' "$O/ebpfilter")
refused=$(awk '$1 ~ /^[0-9]+$/ && $4 != "ok"' "$O/ebpfilter" | wc -l)
echo "--- errno differences (case table/kind ip_tables ebpfilter), by kind:"
awk '{ print $2, $3, "->", $4 }' "$O/errno.diff" | sort | uniq -c | sort -rn | head -n 30
echo "--- first errno differences:"
head -n 10 "$O/errno.diff"
echo "--- first class differences:"
head -n 20 "$O/class.diff"
result=PASS
[ "$rc" = 0 ] && [ "$class_mm" = 0 ] && [ "$changed" = 0 ] && [ "$broken" = 0 ] &&
	[ "$alive" = yes ] || result=FAIL
counts="$N cases x2 (ip_tables $((t1 - t0)) s, ebpfilter $((t2 - t1)) s); $refused refused; class differences $class_mm; errno differences $errno_mm; refused-but-changed $changed; traffic checks $checks, broken $broken; helper alive: $alive, restarts $restarts"
echo "SOAK-RESULT sockopt-fuzz $result $counts"
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
[ $result = PASS ] || fail "sockopt-fuzz: $counts"
