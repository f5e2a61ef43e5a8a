#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compiled IPv6 (issue 18): loaded with the defaults (ipv6=Y ipv6_bpf=Y),
# the helper compiles an IPv6 filter table and its program decides the
# hook: an ebpf_output program exists once IPv6 OUTPUT rules do (the IPv4
# filter table has only its policies, so no program: it is the IPv6
# table's), it runs on IPv6 packets
# (bpftool's run_cnt, kernel.bpf_stats_enabled), the packets get the
# rules' verdicts (an ICMPv6 echo request and a UDP datagram to ::1
# dropped, a TCP SYN accepted) and the counters are the program's; dmesg
# says no hook was left uncompiled and no program returned a bad verdict.
# Then 16 rules of one layout, a classified run: a classifier map, and a
# packet counted on the first rule with its key only.  Then multiport,
# state/conntrack and a set-like run of gotos: their packets decided by
# the program, none handed over to the module's walk (the resume maps
# stay zero), which a rule with an hl match then is.
# Loaded with the module's defaults (ipv6=Y ipv6_bpf=Y): what a plain
# `modprobe ebpfilter` gives.  IP6_COMPILED_PARAMS overrides them (the
# check that the test fails with ipv6_bpf off: "ipv6_bpf=0").
# run-all-cost: 20
. tests/guest/lib-ebpfilter.sh
IPT6=ip6tables-legacy
BPFTOOL=${BPFTOOL:-/usr/sbin/bpftool}
PARAMS=${IP6_COMPILED_PARAMS-}

runs() {	# run_cnt summed over the ebpf_output programs
	local out
	out=$($BPFTOOL prog show 2>&1) || fail "bpftool prog show: $out"
	printf '%s\n' "$out" | awk '/name ebpf_output/ {
		for (i = 1; i < NF; i++) if ($i == "run_cnt") s += $(i + 1) }
		END { print s + 0 }'
}

pkts() {	# pkts N: the packet count of OUTPUT's rule N
	$IPT6 -L OUTPUT -v -x -n | awk -v n="$1" 'NR == n + 2 { print $1 }'
}

ebpf_install
ip link set lo up
dmesg_mark
modprobe ebpfilter $PARAMS || fail "modprobe ebpfilter${PARAMS:+ $PARAMS}"
wait_for 5 dmesg_has "enforcement: kmod hooks" || fail "no kmod mechanism line"
sysctl -qw kernel.bpf_stats_enabled=1 || fail "no bpf_stats_enabled"

$IPT6 -A OUTPUT -o lo -d ::1 -p udp --dport 9 -j DROP || fail "ip6tables -A udp"
$IPT6 -A OUTPUT -p icmpv6 --icmpv6-type echo-request -j DROP ||
	fail "ip6tables -A icmpv6"
$IPT6 -A OUTPUT -s ::1/128 -p tcp --dport 7 -j ACCEPT || fail "ip6tables -A tcp"
# the IPv4 filter table (made at load) is only its policies: no program
[ "$(iptables-legacy -S | grep -c '^-A')" = 0 ] || fail "IPv4 rules exist"
n=$(bpf_count prog 'name ebpf_output') || exit 1
[ "$n" -ge 1 ] || fail "no program for the IPv6 OUTPUT hook (${PARAMS:-the defaults})"
note "IPv6 OUTPUT program loaded ($n)"

before=$(runs)
got=$(busybox ping -6 -c 1 -W 1 -w 2 ::1 2>/dev/null |
	sed -n 's/.* \([0-9]*\) packets received.*/\1/p')
[ "${got:-0}" = 0 ] || fail "echo requests answered: $got"
if (echo x > /dev/udp/::1/9) 2>/dev/null; then
	fail "UDP to ::1 port 9 was sent"
fi
(exec 3<>/dev/tcp/::1/7) 2>/dev/null	# refused (nothing listens): accepted
after=$(runs)
[ "$after" -gt "$before" ] ||
	fail "the IPv6 program did not run (run_cnt $before -> $after)"
note "program runs: $before -> $after"
assert_eq 1 "$(pkts 1)" "udp rule's packets"
assert_eq 1 "$(pkts 2)" "icmpv6 rule's packets"
[ "$(pkts 3)" -ge 1 ] || fail "tcp rule counted $(pkts 3)"
if dmesg_since_mark | grep -E 'not compiled|a program returned|walked by the module'; then
	fail "a hook was not compiled"
fi

# a classified run (cgen/classify.c): 16 rules of one layout (-d /128, -p
# udp, --dport) are one hash lookup; the packet to port 1010 gets rule 11's
# verdict and counter (the first of two with that key: rule 15 repeats
# it), one to port 1100 none of them
$IPT6 -F OUTPUT
for p in $(seq 1000 1013) 1010 1020; do
	$IPT6 -A OUTPUT -o lo -d ::1/128 -p udp --dport "$p" -j DROP ||
		fail "ip6tables -A udp $p"
done
n=$(bpf_count map 'name ebpf_cls') || exit 1
[ "$n" -ge 1 ] || fail "no classifier map for the 16 udp rules"
if (echo x > /dev/udp/::1/1010) 2>/dev/null; then
	fail "UDP to ::1 port 1010 was sent"
fi
(echo x > /dev/udp/::1/1100) 2>/dev/null || fail "UDP to ::1 port 1100 dropped"
assert_eq 1 "$(pkts 11)" "port 1010's first rule's packets"
assert_eq 1 "$($IPT6 -L OUTPUT -v -x -n | awk 'NR > 2 { s += $1 } END { print s + 0 }')" \
	"packets counted by the 16 rules"
note "classified run: $n map(s), port 1010 counted on rule 11 only"
if dmesg_since_mark | grep -E 'not compiled|a program returned|walked by the module'; then
	fail "a hook was not compiled"
fi

# multiport, --ctstate and a set-like run (issue 18): decided by the
# program.  A program hands a packet to the module's walk by writing the
# rule's offset into the table's resume map (per commit, per CPU), so
# packets the program decided leave every ebpf_resume map all zeros; the
# last step hands one over on purpose (hl has no emitter) and must see it
handed() {	# non-zero bytes in every ebpf_resume map's values
	local id n=0 out
	for id in $($BPFTOOL map show | awk '/name ebpf_resume/ { sub(":", "", $1); print $1 }'); do
		out=$($BPFTOOL map dump id "$id" 2>&1) || fail "bpftool map dump id $id: $out"
		n=$((n + $(printf '%s\n' "$out" | awk '/^value/ { v = 1; next } /^key/ { v = 0 }
			v { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/ && $i != "00") n++ }
			END { print n + 0 }')))
	done
	echo $n
}
$IPT6 -F OUTPUT
$IPT6 -N S || fail "ip6tables -N S"
$IPT6 -A S -j DROP || fail "ip6tables -A S"
$IPT6 -A OUTPUT -o lo -p udp -m multiport --dports 2001,2003:2005 -j DROP ||
	fail "ip6tables -A multiport"
$IPT6 -A OUTPUT -o lo -p udp -m conntrack --ctstate INVALID -j DROP ||
	fail "ip6tables -A ctstate INVALID"
$IPT6 -A OUTPUT -o lo -p udp --dport 2100 -m state --state NEW -j DROP ||
	fail "ip6tables -A state NEW"
for p in $(seq 3000 3009); do	# a run of gotos: no classified run takes it
	$IPT6 -A OUTPUT -o lo -p udp --dport "$p" -g S || fail "ip6tables -A goto $p"
done
n=$(bpf_count map 'name ebpf_set') || exit 1
[ "$n" -ge 1 ] || fail "no set-like run's map for the 10 gotos"
[ "$(handed)" = 0 ] || fail "a resume map holds a hand-over before any packet"
for p in 2004 2100 3004; do
	if (echo x > /dev/udp/::1/$p) 2>/dev/null; then
		fail "UDP to ::1 port $p was sent"
	fi
done
(echo x > /dev/udp/::1/2002) 2>/dev/null || fail "UDP to ::1 port 2002 dropped"
assert_eq 1 "$(pkts 1)" "multiport rule's packets"
assert_eq 0 "$(pkts 2)" "--ctstate INVALID rule's packets"
assert_eq 1 "$(pkts 3)" "state NEW rule's packets"
assert_eq 1 "$(pkts 8)" "port 3004's goto's packets"
assert_eq 1 "$($IPT6 -L S -v -x -n | awk 'NR == 3 { print $1 }')" "S's DROP packets"
h=$(handed)
[ "$h" = 0 ] || fail "packets were handed to the module's walk ($h resume bytes set)"
note "multiport, state, set-like run ($n map(s)): decided by the program"
# the check of the check: a rule the module runs (hl) gets a hand-over
$IPT6 -I OUTPUT 1 -o lo -p udp --dport 2200 -m hl --hl-gt 0 -j DROP ||
	fail "ip6tables -I hl"
if (echo x > /dev/udp/::1/2200) 2>/dev/null; then
	fail "UDP to ::1 port 2200 was sent"
fi
h=$(handed)
[ "$h" -gt 0 ] || fail "the hl rule's packet left no hand-over in a resume map"
note "a kernel rule's packet: handed over ($h resume bytes set)"
if dmesg_since_mark | grep -E 'not compiled|a program returned|walked by the module'; then
	fail "a hook was not compiled"
fi
$IPT6 -F OUTPUT
$IPT6 -F S && $IPT6 -X S || fail "ip6tables -X S"
rmmod ebpfilter || fail rmmod
note "ok"
