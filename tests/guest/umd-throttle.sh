#!/bin/bash
# A helper that keeps dying right after its start is not restarted in a
# loop: after 3 quick deaths restarts are throttled, with a dmesg line.
. tests/guest/lib-ebpfilter.sh
ebpf_install
dmesg_mark
modprobe ebpfilter || fail modprobe
for i in 1 2 3; do
	pid=$(helper_pids)
	kill -9 "$pid"
	wait_for 5 dmesg_has "helper (pid $pid) died" || fail "death $i not noticed"
	[ $i = 3 ] || request_ok || fail "restart $i not served"
done
dmesg_has "helper keeps dying (3 times" || fail "throttling not reported"
out=$("$SOCKOPT_REQ" served)
[ "$out" = "err EIO 5" ] || fail "request during throttling: '$out'"
[ "$(helper_count)" = 0 ] || fail "helper restarted while throttled"
dmesg_has "helper restart throttled" || fail "refusal not reported"
sleep 5.5
request_ok || fail "no restart after the throttle delay"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
dmesg_since_mark | grep ebpfilter
