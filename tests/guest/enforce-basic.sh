#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Enforcement end to end: the helper compiles the filter table to BPF and
# the rules act on real packets (ICMP over lo), with counters; the
# mechanism is reported in dmesg (kmod, the module's own hooks); the rules
# stay in force while the helper is dead (kill -9) and after its restart;
# rmmod leaves no ebpfilter program or map behind.
# run-all-tier: smoke
. tests/guest/lib-ebpfilter.sh
IPT=iptables-legacy
BPFTOOL=${BPFTOOL:-/usr/sbin/bpftool}

pings() {	# pings N: how many of N pings to 127.0.0.1 were answered
	busybox ping -c "$1" -W 1 -w "$(($1 + 1))" 127.0.0.1 2>/dev/null |
		sed -n 's/.* \([0-9]*\) packets received.*/\1/p'
}

# bpf_calls NAME: "P C", the programs named NAME and the bpf-to-bpf calls
# in them (bpftool prints a call of a subprogram as "call pc...")
bpf_calls() {
	local out id p=0 n=0

	out=$($BPFTOOL prog show 2>&1) || fail "bpftool prog show: $out"
	for id in $(printf '%s\n' "$out" |
		    awk -v n="name $1 " 'index($0, n) { sub(":", "", $1); print $1 }'); do
		out=$($BPFTOOL prog dump xlated id "$id" 2>&1) ||
			fail "bpftool prog dump xlated id $id: $out"
		p=$((p + 1))
		n=$((n + $(printf '%s\n' "$out" | grep -c 'call pc')))
	done
	echo "$p $n"
}

ours() {	# our programs and maps, by name (bpf_count fails if bpftool does)
	bpf_count prog 'name ebpf_'
	bpf_count map 'name ebpf_'
}

ebpf_install
ip link set lo up
dmesg_mark
modprobe ebpfilter || fail modprobe
mech=kmod
wait_for 5 dmesg_has "enforcement: $mech hooks" ||
	fail "no '$mech' mechanism line in dmesg: $(dmesg_since_mark | grep -i enforce)"

[ "$(pings 2)" = 2 ] || fail "lo does not answer with the initial (ACCEPT) table"
$IPT -A INPUT -p icmp -m icmp --icmp-type echo-request -j DROP || fail "iptables -A"
[ "$(pings 2)" = 0 ] || fail "echo requests not dropped"
pk=$($IPT -L INPUT -v -x -n | awk '/icmptype 8/ { print $1 }')
[ "$pk" -ge 2 ] 2>/dev/null || fail "counter of the DROP rule: '$pk'"
note "INPUT DROP rule counted $pk packets"

# A hook without user chains is one BPF function (umh/cgen/abi.h, "main"):
# no bpf-to-bpf call, one bpf_prog in the kernel (issue 17); one that jumps
# into a user chain keeps a function per chain, which is also the control
# that bpftool shows such calls at all.
o=$(bpf_calls ebpf_input) || exit 1
set -- $o
[ "$1" -gt 0 ] || fail "no program named ebpf_input"
[ "$2" = 0 ] || fail "INPUT has no user chain, yet $2 bpf-to-bpf calls in $1 programs"
$IPT -N LC && $IPT -A LC -p tcp -j RETURN && $IPT -A OUTPUT -j LC ||
	fail "a user chain jumped to from OUTPUT"
o=$(bpf_calls ebpf_output) || exit 1
set -- $o
[ "$2" -gt 0 ] || fail "OUTPUT jumps into a user chain, yet no bpf-to-bpf call in $1 programs"
note "ebpf_input: one function; ebpf_output with a user chain: $2 calls"
$IPT -D OUTPUT -j LC && $IPT -F LC && $IPT -X LC || fail "removing the user chain"

# A rule set refused late (the kernel's own check of the owner match,
# reached from INPUT, after the helper compiled the rest) fails as a whole
# and leaves the old rules in force.
{
	echo "*filter"
	echo ":C1 - [0:0]"
	echo "-A INPUT -j C1"
	echo "-A C1 -p tcp --dport 22 -j ACCEPT"
	echo "-A C1 -m owner --uid-owner 0 -j ACCEPT"
	echo "COMMIT"
} > /tmp/late.rules
iptables-legacy-restore --noflush < /tmp/late.rules 2>/dev/null &&
	fail "a rule set with an owner match reached from INPUT was accepted"
wait_for 5 dmesg_has "not replaced" || fail "no reason in dmesg for the refused rule set"
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
wait_for 5 dmesg_has "adopted the" || fail "restart did not report adoption"
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
