#!/bin/bash
# The helper's dmesg lines go through /dev/kmsg, which takes 10 lines per
# 5 s from one writer and drops the rest without an error.  A burst of
# refusals (one line per rule set naming a match no kernel module
# provides) shows as the lines that
# fitted plus "N messages suppressed" lines that account for every other
# one, in the next window or, when the helper exits, in the line the
# helper keeps for it; the kernel itself drops nothing.
. tests/guest/lib-ebpfilter.sh
ebpf_install
modprobe ebpfilter || fail "modprobe ebpfilter"
burst() {	# COUNT TAG: COUNT rule sets using a match nobody provides
	local i out
	for i in $(seq 1 "$1"); do
		out=$("$SOCKOPT_REQ" replace-unknown "$2$i") || fail "request $i"
		[ "$out" = "err ENOENT 2" ] || fail "request $i: $out"
	done
}
# one helper line per refused rule set; the refusal itself (ENOENT) is
# the kernel's, so the line does not name the match: count by the window
shown() { dmesg_since_mark | grep -c "ebpfilter-umh.*table filter not replaced.*No such file"; }
suppressed() {
	dmesg_since_mark | sed -n 's/.*ebpfilter-umh\[[0-9]*\]: \([0-9]*\) messages suppressed.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}

note "a burst of 30, then one more in the next window"
sleep 5.2	# the start-up lines are in the first window: a fresh one
dmesg_mark
burst 30 nosuch
sleep 5.2
burst 1 late
dmesg_since_mark | grep ebpfilter-umh | sed 's/^/    /' | head -n 14
s=$(shown) n=$(suppressed)
echo "shown $s, suppressed $n"
[ "$n" -gt 0 ] || fail "a burst of 30 lines was not limited"
assert_eq 31 $((s + n)) "burst lines (30 + 1 late) shown + reported as suppressed"
last=$(dmesg_since_mark | grep -E "not replaced|messages suppressed" | tail -n 1 |
	sed 's/.*\(not replaced\|messages suppressed\).*/\1/')
assert_eq "not replaced" "$last" "the late line, in a fresh window, shown"

note "a burst of 12, then the helper exits in the same window"
sleep 5.2
dmesg_mark
burst 12 gone
modprobe -r ebpfilter || fail "modprobe -r"
dmesg_since_mark | grep -E 'ebpfilter|printk' | sed 's/^/    /'
s=$(shown) n=$(suppressed)
bye=$(dmesg_since_mark | grep -c 'enforcement: removed every program')
echo "shown $s (+ $bye shutdown line), suppressed $n"
[ "$n" -gt 0 ] || fail "no report at exit"
assert_eq 13 $((s + bye + n)) "lines shown + reported as suppressed"
! dmesg | grep -q "output lines suppressed due to ratelimiting" ||
	fail "the kernel dropped helper lines itself"
