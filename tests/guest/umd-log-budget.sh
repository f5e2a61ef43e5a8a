#!/bin/bash
# The helper's dmesg lines go through /dev/kmsg, which takes 10 lines per
# 5 s from one writer and drops the rest without an error.  A burst of
# notices (one per unserved extension asked for) shows as the lines that
# fitted plus "N messages suppressed" lines that account for every other
# one, in the next window or, when the helper exits, in the line the
# helper keeps for it; the kernel itself drops nothing.
. tests/guest/lib-ebpfilter.sh
ebpf_install
modprobe ebpfilter || fail "modprobe ebpfilter"
burst() {	# COUNT TAG: ask for COUNT extensions nobody serves
	local i
	for i in $(seq 1 "$1"); do
		"$SOCKOPT_REQ" rev-match "$2$i" >/dev/null || fail "request $i"
	done
}
shown() { dmesg_since_mark | grep -c "match \"$1[0-9]*\", which ebpfilter does not serve"; }
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
s=$(shown nosuch) n=$(suppressed)
echo "shown $s, suppressed $n"
[ "$n" -gt 0 ] || fail "a burst of 30 lines was not limited"
assert_eq 30 $((s + n)) "burst lines shown + reported as suppressed"
assert_eq 1 "$(shown late)" "the line after the report"

note "a burst of 12, then the helper exits in the same window"
sleep 5.2
dmesg_mark
burst 12 gone
modprobe -r ebpfilter || fail "modprobe -r"
dmesg_since_mark | grep -E 'ebpfilter|printk' | sed 's/^/    /'
s=$(shown gone) n=$(suppressed)
bye=$(dmesg_since_mark | grep -c 'enforcement: removed every program')
echo "shown $s (+ $bye shutdown line), suppressed $n"
[ "$n" -gt 0 ] || fail "no report at exit"
assert_eq 13 $((s + bye + n)) "lines shown + reported as suppressed"
! dmesg | grep -q "output lines suppressed due to ratelimiting" ||
	fail "the kernel dropped helper lines itself"
