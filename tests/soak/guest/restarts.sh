#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part restarts: SOAK_RESTARTS helper restarts (kill -9, the
# next request restarts it; two quick deaths then a 10.5 s wait, so the
# restart throttle never engages), the module loaded throughout with a
# rule committed.  Checked: every death noticed, every next request
# served by one new helper, no restart throttled, the rule still there;
# at the end BPF objects, AF_UNIX sockets, processes and fds back, slab
# (SUnreclaim) within a bound of the start, and after the unload nothing
# of ebpfilter left.  (Until 2026-12-07 the second half of cycles.sh.)
. tests/soak/guest/lib-soak.sh
R=${SOAK_RESTARTS:-12}
ebpf_install

dmesg_mark
modprobe ebpfilter || fail modprobe
$IPT -w -A INPUT -p tcp --dport 22 -j ACCEPT || fail "rule"
h0=$(bpf_objs) || exit 1
hs0=$(unix_sockets); hp0=$(nprocs); hf0=$(nfds); hsu0=$(kb SUnreclaim)
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
sleep 1
h1=$(bpf_objs) || exit 1
hs1=$(unix_sockets); hp1=$(nprocs); hf1=$(nfds); hsu1=$(kb SUnreclaim)
restarts=$(dmesg_since_mark | grep -c 'helper restarted')
throttled=$(dmesg_since_mark | grep -c 'restarts throttled')
echo "after $R restarts: BPF objects $h0 -> $h1; sockets $hs0 -> $hs1; processes $hp0 -> $hp1; fds $hf0 -> $hf1; SUnreclaim $hsu0 -> $hsu1 kB"
leaks=""
[ "$h1" = "$h0" ] || leaks="$leaks BPF $h0->$h1"
[ $((hs1 - hs0)) -le 2 ] || leaks="$leaks sockets $hs0->$hs1"
[ $((hp1 - hp0)) -le 2 ] || leaks="$leaks processes $hp0->$hp1"
[ $((hf1 - hf0)) -le 8 ] || leaks="$leaks fds $hf0->$hf1"
[ $((hsu1 - hsu0)) -le $((R < 2048 ? 2048 : R)) ] || leaks="$leaks SUnreclaim ${hsu0}->${hsu1} kB"
$IPT -w -S INPUT | grep -q -- '--dport 22 -j ACCEPT' || leaks="$leaks rule-lost"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
result=PASS
[ -z "$leaks" ] && [ "$restarts" = "$R" ] && [ "$throttled" = 0 ] || result=FAIL
counts="$R helper restarts in $((t3 - t2)) s ($restarts restarts, $throttled throttled); SUnreclaim ${hsu0}->${hsu1} kB; BPF objects $h0 -> $h1; left:${leaks:- nothing}"
echo "SOAK-RESULT restarts $result $counts"
[ $result = PASS ] || fail "restarts: $counts"
