#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part restarts: SOAK_RESTARTS helper restarts (kill -9, the
# next request restarts it; two quick deaths then a 10.5 s wait, so the
# restart throttle never engages), the module loaded throughout with a
# rule committed.  Checked: every death noticed, every next request
# served by one new helper, no restart throttled, the rule still there;
# at the end BPF objects, AF_UNIX sockets, processes and fds back, slab
# and vmalloc within a bound of the start (lib-soak.sh), and after the
# unload nothing of ebpfilter left.  (Until 2026-12-07 the second half of cycles.sh.)
. tests/soak/guest/lib-soak.sh
R=${SOAK_RESTARTS:-12}
ebpf_install

dmesg_mark
modprobe ebpfilter || fail modprobe
$IPT -w -A INPUT -p tcp --dport 22 -j ACCEPT || fail "rule"
h0=$(bpf_objs) || exit 1
before=$(snapshot)
t2=$(date +%s)
for i in $(seq 1 "$R"); do
	[ $((i % 3)) = 1 ] && sleep 10.5	# the helper outlives the quick-death window
	pid=$(helper_pids)
	kill -9 "$pid"
	wait_for 10 dmesg_has "helper (pid $pid) died" || fail "restart $i: death not noticed"
	request_ok || fail "restart $i: not served"
	[ "$(helper_count)" = 1 ] || fail "restart $i: $(helper_count) helpers"
	[ $((i % 100)) = 0 ] && echo "restart $i of $R: $(($(date +%s) - t2)) s"	# progress
done
t3=$(date +%s)
leaks_since "$before" "$R"
h1=$(bpf_objs) || exit 1
restarts=$(dmesg_since_mark | grep -c 'helper restarted')
throttled=$(dmesg_since_mark | grep -c 'restarts throttled')
echo "after $R restarts: BPF objects $h0 -> $h1; $figures"
[ "$h1" = "$h0" ] || leaks="$leaks BPF $h0->$h1"
$IPT -w -S INPUT | grep -q -- '--dport 22 -j ACCEPT' || leaks="$leaks rule-lost"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
result=PASS
[ -z "$leaks" ] && [ "$restarts" = "$R" ] && [ "$throttled" = 0 ] || result=FAIL
counts="$R helper restarts in $((t3 - t2)) s ($restarts restarts, $throttled throttled); $figures; BPF objects $h0 -> $h1; left:${leaks:- nothing}"
echo "SOAK-RESULT restarts $result $counts"
[ $result = PASS ] || fail "restarts: $counts"
