#!/bin/bash
# 8 concurrent requesters: right after load, and right after the helper
# was killed; there is only ever one helper, and every request is served.
. tests/guest/lib-ebpfilter.sh
ebpf_install

burst() {
	local i pids=() rc=0
	for i in $(seq 1 8); do
		"$SOCKOPT_REQ" rev-match tcp > "/tmp/burst.$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	for i in $(seq 1 8); do
		[ "$(cat /tmp/burst.$i)" = "ok 0" ] || { echo "requester $i: $(cat /tmp/burst.$i)"; rc=1; }
	done
	return $rc
}

dmesg_mark
modprobe ebpfilter && burst || fail "burst after load"
[ "$(helper_count)" = 1 ] || fail "$(helper_count) helpers after burst"
pid1=$(helper_pids)

kill -9 "$pid1"
wait_for 5 dmesg_has "helper (pid $pid1) died" || fail "death not noticed"
burst || fail "burst after kill"
[ "$(helper_count)" = 1 ] || fail "$(helper_count) helpers after burst"
n=$(dmesg_since_mark | grep -c "helper restarted")
[ "$n" = 1 ] || fail "$n restarts for one death"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
