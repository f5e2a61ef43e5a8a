#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Enforcement end to end: the helper compiles the filter table to BPF and
# the rules act on real packets (ICMP over lo), with counters; the
# mechanism is reported in dmesg (netfilter on 6.12, tc on 6.1); the rules
# stay in force while the helper is dead (kill -9) and after its restart;
# rmmod leaves no ebpfilter program or map behind.
. tests/guest/lib-ebpfilter.sh
IPT=iptables-legacy
BPFTOOL=${BPFTOOL:-/usr/sbin/bpftool}

pings() {	# pings N: how many of N pings to 127.0.0.1 were answered
	busybox ping -c "$1" -W 1 -w "$(($1 + 1))" 127.0.0.1 2>/dev/null |
		sed -n 's/.* \([0-9]*\) packets received.*/\1/p'
}

ours() {	# our programs and maps, by name (bpf_count fails if bpftool does)
	bpf_count prog 'name ebpf_'
	bpf_count map 'name ebpf_'
}

ebpf_install
ip link set lo up
dmesg_mark
modprobe ebpfilter || fail modprobe
case $KVER in
6.1.*) mech=tc ;;
*) mech=netfilter ;;
esac
wait_for 5 dmesg_has "enforcement: $mech hooks" ||
	fail "no '$mech' mechanism line in dmesg: $(dmesg_since_mark | grep -i enforce)"

[ "$(pings 2)" = 2 ] || fail "lo does not answer with the initial (ACCEPT) table"
$IPT -A INPUT -p icmp -m icmp --icmp-type echo-request -j DROP || fail "iptables -A"
[ "$(pings 2)" = 0 ] || fail "echo requests not dropped"
pk=$($IPT -L INPUT -v -x -n | awk '/icmptype 8/ { print $1 }')
[ "$pk" -ge 2 ] 2>/dev/null || fail "counter of the DROP rule: '$pk'"
note "INPUT DROP rule counted $pk packets"

# A rule set the back end refuses (user chains nested deeper than BPF's
# call depth) fails as a whole and leaves the old rules in force.
{
	echo "*filter"
	for i in 1 2 3 4 5 6 7 8; do echo ":C$i - [0:0]"; done
	echo "-A INPUT -j C1"
	for i in 1 2 3 4 5 6 7; do echo "-A C$i -j C$((i + 1))"; done
	echo "-A C8 -j ACCEPT"
	echo "COMMIT"
} > /tmp/deep.rules
iptables-legacy-restore --noflush < /tmp/deep.rules 2>/dev/null &&
	fail "a rule set nested 8 deep was accepted"
wait_for 5 dmesg_has "nested" || fail "no 'nested' reason in dmesg for the refused rule set"
$IPT -L C1 -n >/dev/null 2>&1 && fail "the refused rule set was partly applied"
[ "$(pings 2)" = 0 ] || fail "old rules not in force after a refused commit"

$IPT -I OUTPUT -p icmp -j ACCEPT || fail "iptables -I OUTPUT"
pk=$($IPT -L OUTPUT -v -x -n | awk 'NR == 3 { print $1 }')
[ "$pk" = 0 ] || fail "a new rule's counter starts at $pk"

pid=$(helper_pids)
kill -9 "$pid"
wait_for 5 dmesg_has "died" || fail "helper death not reported"
[ "$(pings 2)" = 0 ] || fail "rules not in force while the helper is dead"
request_ok || fail "no new helper"
assert_new_helper "$pid"
wait_for 5 dmesg_has "adopted the rules in force" || fail "restart did not report adoption"
[ "$(pings 2)" = 0 ] || fail "rules not in force after the restart"
$IPT -D INPUT 1 || fail "iptables -D after restart"
[ "$(pings 2)" = 2 ] || fail "deleting the rule did not let pings through"

o=$(ours) || exit 1	# (bpf_count's fail ends only the command substitution)
set -- $o
note "before rmmod: $1 programs, $2 maps named ebpf_*"
# else "none left after rmmod" below would prove nothing
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] || fail "no ebpf_* program or map visible while loaded"
modprobe -r ebpfilter || fail rmmod
sleep 1
o=$(ours) || exit 1
set -- $o
[ "$1" = 0 ] && [ "$2" = 0 ] || fail "left after rmmod: $1 programs, $2 maps"
[ "$(pings 2)" = 2 ] || fail "lo blocked after rmmod"
assert_nothing_left
dmesg_since_mark | grep -E "ebpfilter" | grep -iE "enforce|tc:|vault" | head -20
echo "enforce-basic: ok ($mech)"
