#!/bin/bash
# Counters when the helper dies inside a change, in sequences the soak's
# kill-faults part (one fault at a time, under a busy writer) does not
# make on purpose: the faults build (umh/lib/test_faults.c, module
# build/kmod-faults) dies at a named point of a change; a counted rule
# must show exactly the packets sent (none lost, none counted twice):
#   1. commit-live, and the helper that restores dies at commit-live too
#      (the restore saves the restored state again with the replaced
#      rules' counts; the second fault parks the restored rules' map)
#   2. reply, then the next helper dies at restore
#   3. commit-live, then kill -9 of the helper that restored (a restart of
#      a restored state adds nothing again)
#   4. commit: nothing went live, nothing is parked
#   5. kill -9 between a SET_REPLACE's answer and its ADD_COUNTERS
#      (sockopt-req does the two halves of iptables' commit): the restart
#      restores that change, and the old counters the caller adds are not
#      also added by the restore (parked for the state before it)
# Each failed change is absent afterwards, the acknowledged ones present;
# the BPF maps after the sequences are those before them.
. tests/guest/ipt-lib.sh
EBPF_KO=$EBPF_KO_FAULTS
[ -f "$EBPF_KO" ] || fail "no test module at $EBPF_KO"
FAULT=/run/ebpfilter-fault

use_ebpfilter
ip link set lo up
$IPT -w -A OUTPUT -o lo -p udp --dport 9998 -j ACCEPT || fail "rule"
$IPT -w -A INPUT -s 10.77.0.1 -j ACCEPT || fail "rule"
maps0=$(bpf_count map .) || exit 1

sent=0
# send N: N UDP packets through the counted rule
send() {
	local i
	for i in $(seq "$1"); do
		echo x 2>/dev/null >/dev/udp/127.0.0.1/9998
	done
	sent=$((sent + $1))
}
check() {
	local c
	c=$($IPT -w -L OUTPUT -n -v -x | awk '$3 == "ACCEPT" && /dpt:9998/ { print $1 }')
	note "$1: counted ${c:-none} of $sent"
	[ "$c" = "$sent" ] || fail "$1: counted ${c:-none} packets of $sent sent"
}
# arm POINT: the next helper dies at POINT (it reads the file at its
# start); the one running is killed so that the next request starts it
arm() {
	local pid
	echo "$1" >"$FAULT"
	pid=$(helper_pids)
	[ -n "$pid" ] || fail "no helper to kill"
	kill -9 "$pid"
	wait_for 10 dmesg_has "helper (pid $pid) died" || fail "death of $pid not noticed"
}
# died_at POINT [N]: N helpers (1) died there since the mark
faults_at() {
	[ "$(dmesg_since_mark | grep -c "test build: fault at $1")" = "$2" ]
}
died_at() {
	wait_for 10 faults_at "$1" "${2:-1}" || fail "no fault at $1 (${2:-1})"
}
# a helper younger than 10 s counts as a quick death (throttled at 3)
settle() { sleep 10.5; }
# change N: append rule N, expected to fail (the helper dies in it)
change_fails() {
	$IPT -w -A INPUT -s "10.77.1.$1" -j ACCEPT 2>/dev/null &&
		fail "change $1 succeeded although its helper died"
	echo "-A INPUT -s 10.77.1.$1/32 -j ACCEPT" >>/tmp/failed
}
: >/tmp/failed

send 40
check "before the faults"

dmesg_mark
settle
arm commit-live
send 30
change_fails 1
died_at commit-live
echo commit-live >"$FAULT"	# and the helper restoring it
send 20
change_fails 2
died_at commit-live 2
send 10
check "1. commit-live twice"

dmesg_mark
settle
arm reply
send 25
change_fails 3
died_at reply
echo restore >"$FAULT"
request_ok	# the next helper dies restoring
died_at restore
wait_for 15 request_ok || fail "no helper after the restore fault"
send 15
check "2. reply, then restore"

dmesg_mark
settle
arm commit-live
send 35
change_fails 4
died_at commit-live
request_ok || wait_for 10 request_ok || fail "no helper after the fault"
send 5
pid=$(helper_pids)
kill -9 "$pid"
wait_for 10 dmesg_has "helper (pid $pid) died" || fail "death of $pid not noticed"
send 5
check "3. commit-live, then kill -9 after the restore"

dmesg_mark
settle
arm commit
send 20
change_fails 5
died_at commit
send 10
check "4. commit"

dmesg_mark
settle
send 30
out=$("$SOCKOPT_REQ" replace-same filter /tmp/old)
[ "$out" = "ok 0" ] || fail "replace-same: $out"
pid=$(helper_pids)
kill -9 "$pid"
wait_for 10 dmesg_has "helper (pid $pid) died" || fail "death of $pid not noticed"
out=$("$SOCKOPT_REQ" add-counters filter /tmp/old)
[ "$out" = "ok 0" ] || fail "add-counters: $out"
assert_new_helper "$pid"
send 10
check "5. kill -9 between SET_REPLACE and ADD_COUNTERS"

# the changes acknowledged go on counting, the failed ones are not there
$IPT -w -A INPUT -s 10.77.2.1 -j ACCEPT || fail "change after the faults"
send 10
check "after a change"
$IPT -w -S >/tmp/final
grep -qxF -- "-A INPUT -s 10.77.0.1/32 -j ACCEPT" /tmp/final &&
	grep -qxF -- "-A INPUT -s 10.77.2.1/32 -j ACCEPT" /tmp/final ||
	fail "an acknowledged rule is missing: $(cat /tmp/final)"
while read -r r; do
	! grep -qxF -- "$r" /tmp/final || fail "a failed change is in force: $r"
done </tmp/failed
# one rule more than at the start: the same maps (the parked one let go)
$IPT -w -D INPUT -s 10.77.2.1 -j ACCEPT || fail "delete"
maps1=$(bpf_count map .) || exit 1
note "BPF maps: $maps0 before the faults, $maps1 after"
[ "$maps1" = "$maps0" ] || fail "BPF maps $maps0 -> $maps1"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
