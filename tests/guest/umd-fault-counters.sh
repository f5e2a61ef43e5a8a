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
#      (sockopt-req does the two halves of iptables' commit): the module
#      adds the old counters itself (kmod: no helper is started for it),
#      and the restart restores that change without adding them again
#      (parked for the state before it)
#   6. big-request: the helper dies with a SET_REPLACE larger than the
#      channel's socket buffer half read, the module still sending it:
#      dmesg says it died, not that it timed out (the soak's kill -9 of a
#      helper reading a large change was reported as "did not answer
#      within 60000 ms"); nothing of the change is live
#   7. add-counters (kmod): a change's ADD_COUNTERS never reaches the
#      helper, armed to die in one (one killed there lost the counts the
#      caller was adding back: the soak's kill-faults, 2026-12-06)
#   8. commit-switched (kmod): the module switched to the change, the
#      helper dies before it keeps the new counters map (the replaced
#      rules' map, let go of by the module, died with it and every count
#      of the table with it: the soak's kill-faults, 2026-12-06); then
#      kill -9 of the helper that restored (the parked counts moved once)
# Each failed change is absent afterwards, the acknowledged ones present;
# the BPF maps after the sequences are those before them.
#
# Then, when the module has the ipv6 parameter (loaded with ipv6=1 from the
# start, an IPv6 table beside the IPv4 one), sequences 1 to 4 again on the
# IPv6 filter table (its counters map parked and restored as IPv4's; 5
# needs sockopt-req, which speaks IPv4 only), 7 and 8; sequences 1, 4, 7
# and 8 only when EBPF_TIER is not full.  The rules of the other family
# must keep their counts through every fault.
# run-all-cost: 120
. tests/guest/ipt-lib.sh
EBPF_KO=$EBPF_KO_FAULTS
[ -f "$EBPF_KO" ] || fail "no test module at $EBPF_KO"
FAULT=/run/ebpfilter-fault

families=4
ebpf_has_ipv6 && families="4 6"
# fam 4|6: the helpers, the loopback address and the rules' prefix
fam() {
	ipt_family "$1"
	if [ "$1" = 6 ]; then
		LO=::1 plen=128
		# 2001:db8:77:N+1::M: as ip6tables -S prints it (no zero group)
		addr() { echo "2001:db8:77:$(($1 + 1))::$2"; }
	else
		LO=127.0.0.1 plen=32
		addr() { echo "10.77.$1.$2"; }
	fi
}

fam "${families##* }"	# ipv6=1 when IPv6 is tested
use_ebpfilter
ip link set lo up
# ::1 for the IPv6 packets (a test before this one in the same boot may
# have turned IPv6 off: tests/verdict/topology.sh)
[ "$families" = 4 ] || sysctl -qw net.ipv6.conf.lo.disable_ipv6=0 || fail "IPv6 on lo"
for f in $families; do
	fam "$f"
	$IPT -w -A OUTPUT -o lo -p udp --dport 9998 -j ACCEPT || fail "rule"
	$IPT -w -A INPUT -s "$(addr 0 1)" -j ACCEPT || fail "rule"
done
maps0=$(bpf_count map .) || exit 1

declare -A sent=([4]=0 [6]=0)
# send N: N UDP packets through the counted rule of the current family
send() {
	local i
	for i in $(seq "$1"); do
		echo x 2>/dev/null >/dev/udp/$LO/9998
	done
	sent[$IPT_FAMILY]=$((sent[$IPT_FAMILY] + $1))
}
check() {
	local c n=${sent[$IPT_FAMILY]}
	c=$($IPT -w -L OUTPUT -n -v -x | awk '$3 == "ACCEPT" && /dpt:9998/ { print $1 }')
	note "IPv$IPT_FAMILY: $1: counted ${c:-none} of $n"
	[ "$c" = "$n" ] || fail "IPv$IPT_FAMILY: $1: counted ${c:-none} packets of $n sent"
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
	$IPT -w -A INPUT -s "$(addr 1 "$1")" -j ACCEPT 2>/dev/null &&
		fail "change $1 succeeded although its helper died"
	echo "-A INPUT -s $(addr 1 "$1")/$plen -j ACCEPT" >>/tmp/failed.$IPT_FAMILY
}

# fault_then_kill POINT N LABEL: change N fails, its helper dying at
# POINT; the helper that restored is killed -9; check LABEL
fault_then_kill() {
	local pid
	arm "$1"
	send 35
	change_fails "$2"
	died_at "$1"
	request_ok || wait_for 10 request_ok || fail "no helper after the fault"
	send 5
	pid=$(helper_pids)
	kill -9 "$pid"
	wait_for 10 dmesg_has "helper (pid $pid) died" || fail "death of $pid not noticed"
	send 5
	check "$3"
}

# sequences FAMILY N...: the sequences N of the header on FAMILY's table
sequences() {
fam "$1"
shift
: >/tmp/failed.$IPT_FAMILY
send 40
check "before the faults"

if in_list 1 "$@"; then

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
fi

if in_list 2 "$@"; then
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
fi

if in_list 3 "$@"; then
dmesg_mark
settle
fault_then_kill commit-live 4 "3. commit-live, then kill -9 after the restore"
fi

if in_list 4 "$@"; then
dmesg_mark
settle
arm commit
send 20
change_fails 5
died_at commit
send 10
check "4. commit"
fi

if in_list 5 "$@"; then
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
# the module adds the counters of the tables it holds itself, with no
# helper running; else the request started a new one
if [ "$(ebpf_mech)" = kmod ]; then
	[ "$(helper_count)" = 0 ] || fail "a helper was started for an ADD_COUNTERS the module serves"
else
	assert_new_helper "$pid"
fi
send 10
check "5. kill -9 between SET_REPLACE and ADD_COUNTERS"
fi

if in_list 7 "$@" && [ "$(ebpf_mech)" = kmod ]; then
dmesg_mark
settle
arm add-counters
send 20
# A change is a SET_REPLACE, then the ADD_COUNTERS of what the replaced
# rules counted: the module serves the latter for the tables it holds, so
# this helper, armed to die in one, never sees it (a helper killed in one
# lost those counts: issue 21's kill-faults)
$IPT -w -A INPUT -s "$(addr 3 1)" -j ACCEPT &&
	$IPT -w -D INPUT -s "$(addr 3 1)" -j ACCEPT ||
	fail "a change failed: $(dmesg_since_mark | grep 'helper (pid' | tail -n 2)"
! dmesg_since_mark | grep -q "fault at add-counters" || fail "an ADD_COUNTERS reached the helper"
send 10
check "7. ADD_COUNTERS served by the module"
fi

if in_list 8 "$@" && [ "$(ebpf_mech)" = kmod ]; then
dmesg_mark
settle
fault_then_kill commit-switched 6 "8. commit-switched, then kill -9 after the restore"
dmesg_since_mark | grep -q "a change replaced before its caller was answered, moved to the restored rules" ||
	fail "the restore did not say it moved the parked counts"
fi

if in_list 6 "$@"; then
dmesg_mark
settle
arm big-request
send 20
# 2,500 rules in a new chain: a blob of ~380 KB (the socket's ~210 KiB)
{ echo "*filter"; echo ":BIG - [0:0]"
  for i in $(seq 0 2499); do echo "-A BIG -s 10.78.$((i / 250)).$((i % 250 + 1))/32 -j ACCEPT"; done
  echo COMMIT; } >/tmp/big.rules
$IPT-restore --noflush </tmp/big.rules 2>/dev/null &&
	fail "the big change succeeded although its helper died"
died_at big-request
# ... naming the request it died in
dmesg_since_mark | grep -q 'died: exited with status 134 while serving IPT_SO_SET_REPLACE$' ||
	fail "the helper's death in a big request not reported as a death in its SET_REPLACE: $(dmesg_since_mark | grep 'helper (pid' | tail -n 2)"
! dmesg_since_mark | grep 'did not answer' || fail "a death reported as a timeout"
request_ok || wait_for 10 request_ok || fail "no helper after the fault"
! $IPT -w -S BIG >/dev/null 2>&1 || fail "chain BIG of the failed change exists"
send 10
check "6. big-request"
fi
}
in_list() {	# WORD LIST...
	local w=$1
	shift
	case " $* " in *" $w "*) return 0 ;; esac
	return 1
}

sequences 4 1 2 3 4 5 6 7 8
if [ "$families" = "4 6" ]; then
	if [ "${EBPF_TIER-}" = full ]; then sequences 6 1 2 3 4 7 8; else sequences 6 1 4 7 8; fi
fi

# in each family the changes acknowledged go on counting (the IPv4 rule
# through the IPv6 faults too), the failed ones are not there
for f in $families; do
	fam "$f"
	$IPT -w -A INPUT -s "$(addr 2 1)" -j ACCEPT || fail "change after the faults"
	send 10
	check "after a change"
	$IPT -w -S >/tmp/final
	grep -qxF -- "-A INPUT -s $(addr 0 1)/$plen -j ACCEPT" /tmp/final &&
		grep -qxF -- "-A INPUT -s $(addr 2 1)/$plen -j ACCEPT" /tmp/final ||
		fail "an acknowledged rule is missing: $(cat /tmp/final)"
	while read -r r; do
		! grep -qxF -- "$r" /tmp/final || fail "a failed change is in force: $r"
	done </tmp/failed.$f
	# one rule more than at the start: the same maps (the parked one let go)
	$IPT -w -D INPUT -s "$(addr 2 1)" -j ACCEPT || fail "delete"
done
maps1=$(bpf_count map .) || exit 1
note "BPF maps: $maps0 before the faults, $maps1 after"
[ "$maps1" = "$maps0" ] || fail "BPF maps $maps0 -> $maps1"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
