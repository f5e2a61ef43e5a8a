#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-namespace tables (issue 17): two namespaces with conflicting rules,
# each enforcing its own and the host neither; under ip_tables, then
# ebpfilter, in the same boot (tests/guest/netns-lib.sh).
#
#   ns n1  eth0 10.1.1.2 ==== v1 10.1.1.1  (root, forwarding on)
#   ns n2  eth0 10.1.2.2 ==== v2 10.1.2.1  (root)
#   ns n3  eth0 10.1.3.2 ==== v3 10.1.3.1  (root): a third namespace, no rules
#
# n1: INPUT -i eth0 tcp 22 DROP, tcp 80 ACCEPT; n2: INPUT tcp 22 ACCEPT,
# tcp 80 DROP, OUTPUT -o eth0 to 10.1.2.1 tcp 9999 DROP, and a raw table
# (a counting PREROUTING -i eth0 rule): interface names are the
# namespace's own; the host: counting rules (INPUT tcp 22, FORWARD from
# n3) and an INPUT drop of n1's address, tcp 80, which none of its own
# packets matches (0 packets; n1's 80 answers).  vprobe listeners on 22, 80, 9999 in root, n1, n2.  Compared:
# /proc/net/ip_tables_names of every namespace (fresh, after first use,
# after the rules, after traffic); the first -S of a fresh namespace;
# probes from the host and from n3 to n1 and n2 (each its own verdict),
# from n3 to the host (nothing dropped), from n2 and n1 to the host's 9999
# (only n2's OUTPUT drops); each namespace's -S, and -L -n -v -x of each
# of its tables (skipped when a TCP segment was retransmitted in either
# run: a retransmitted SYN adds a packet to one run's counters); then n1
# flushed (n2 still drops 80, n1 now lets 22 in); then n1 deleted and
# created again: no tables, its rules gone with it.
# run-all-cost: 120
. tests/guest/netns-lib.sh

NSS="n1 n2 n3"

probes() {	# PHASE: the probe matrix, one line per probe in part "verdicts"
	local x
	for x in "root n1 10.1.1.1 10.1.1.2 22" "root n1 10.1.1.1 10.1.1.2 80" \
		"root n2 10.1.2.1 10.1.2.2 22" "root n2 10.1.2.1 10.1.2.2 80" \
		"n3 n1 10.1.3.2 10.1.1.2 22" "n3 n1 10.1.3.2 10.1.1.2 80" \
		"n3 n2 10.1.3.2 10.1.2.2 22" "n3 n2 10.1.3.2 10.1.2.2 80" \
		"n3 root 10.1.3.2 10.1.3.1 22" "n3 root 10.1.3.2 10.1.3.1 80" \
		"n1 root 10.1.1.2 10.1.1.1 9999" "n2 root 10.1.2.2 10.1.2.1 9999"; do
		set -- $x
		ns_log verdicts "$PHASE $1 -> $2:$5 $(ns_probe "$1-$2-$5" "$1" tcp "$3" "$4" "$5")"
	done
}

# verdicts_of PHASE: the verdicts of PHASE, as a list "FROM->TO:PORT=R"
verdicts_of() {
	awk -v p="$1" '$1 == p { printf "%s%s%s%s=%s", sep, $2, $3, $4, $5; sep = " " }' "$(ns_file verdicts)"
}

tables() {	# PART: -S and -L -n -v -x of every table of every namespace
	local ns t x
	for ns in root $NSS; do
		if [ $ns = root ]; then x=; else x="ip netns exec $ns"; fi
		ns_log "$1" "names $ns: $(ns_names ${x:+$ns})"
		for t in $($x cat /proc/net/ip_tables_names | sort); do
			ns_run "$1" $x iptables-legacy -t "$t" -S
			ns_run "$1" $x iptables-legacy -t "$t" -L -n -v -x
		done
	done
}

run() {
	local r0 r
	rm -f "$NS_OUT"/*."$ENGINE"
	# the host's: counting rules, and a drop no packet of its own matches
	# (n1's address): were the host's rules run on n1's packets, n1's 80
	# would time out
	iptables-legacy -A INPUT -p tcp --dport 22 &&
		iptables-legacy -A INPUT -d 10.1.1.2 -p tcp --dport 80 -j DROP &&
		iptables-legacy -A FORWARD -s 10.1.3.2 || fail "host rules under $ENGINE"
	ns_link n1 v1 10.1.1.1 10.1.1.2 && ns_link n2 v2 10.1.2.1 10.1.2.2 &&
		ns_link n3 v3 10.1.3.1 10.1.3.2 || fail "topology"
	sysctl -qw net.ipv4.ip_forward=1 net.ipv4.tcp_syn_retries=1 \
		net.ipv4.tcp_synack_retries=0 net.ipv4.ip_local_port_range="50000 60999"
	SERVERS=
	"$VPROBE" serve 22 80 9999 & SERVERS="$SERVERS $!"
	for ns in n1 n2; do
		ip netns exec $ns "$VPROBE" serve 22 80 9999 & SERVERS="$SERVERS $!"
	done
	sleep 0.5
	# neighbours resolved, listeners up, before any rule
	PHASE=warmup probes
	ns_expect "warm-up verdicts (no rules)" \
		"root->n1:22=ok root->n1:80=ok root->n2:22=ok root->n2:80=ok n3->n1:22=ok n3->n1:80=ok n3->n2:22=ok n3->n2:80=ok n3->root:22=ok n3->root:80=ok n1->root:9999=ok n2->root:9999=ok" \
		"$(verdicts_of warmup)"
	rm -f "$(ns_file verdicts)"
	iptables-legacy -Z || fail "zeroing the host's counters under $ENGINE"

	for ns in $NSS; do ns_log names "$ns fresh: $(ns_names $ns)"; done
	ns_expect "n1's tables when fresh" "(none)" "$(ns_names n1)"
	# a save reads /proc/net/ip_tables_names: nothing, and nothing made
	ns_run first ip netns exec n3 iptables-legacy-save
	ns_expect "a save in a fresh namespace" "" "$(ip netns exec n3 iptables-legacy-save 2>&1)"
	# the first request names the filter table: it is made, with ACCEPT policies
	ns_run first ip netns exec n1 iptables-legacy -S
	ns_expect "n1's first -S" "$(printf '%s\n' '-P INPUT ACCEPT' '-P FORWARD ACCEPT' '-P OUTPUT ACCEPT')" \
		"$(ip netns exec n1 iptables-legacy -S)"
	ns_run first ip netns exec n1 iptables-legacy-save
	ns_log names "n1 after -S: $(ns_names n1)"
	ns_expect "n1's tables after -S" filter "$(ns_names n1)"
	ns_log names "n2 still: $(ns_names n2)"
	ns_expect "n2's tables after n1's -S" "(none)" "$(ns_names n2)"

	ns_run rules ip netns exec n1 iptables-legacy -A INPUT -i eth0 -p tcp --dport 22 -j DROP
	ns_run rules ip netns exec n1 iptables-legacy -A INPUT -p tcp --dport 80 -j ACCEPT
	ns_run rules ip netns exec n2 iptables-legacy -A INPUT -p tcp --dport 22 -j ACCEPT
	ns_run rules ip netns exec n2 iptables-legacy -A INPUT -p tcp --dport 80 -j DROP
	ns_run rules ip netns exec n2 iptables-legacy -A OUTPUT -o eth0 -d 10.1.2.1 -p tcp --dport 9999 -j DROP
	ns_run rules ip netns exec n2 iptables-legacy -t raw -A PREROUTING -i eth0 -p tcp
	for ns in root $NSS; do ns_log names "$ns after the rules: $(ns_names ${ns#root})"; done
	ns_expect "n2's tables" "raw filter" "$(ns_names n2)"
	ns_expect "n3's tables" "(none)" "$(ns_names n3)"

	r0=$(ns_retrans root $NSS)
	PHASE=rules probes
	ns_expect "verdicts with the rules" \
		"root->n1:22=timeout root->n1:80=ok root->n2:22=ok root->n2:80=timeout n3->n1:22=timeout n3->n1:80=ok n3->n2:22=ok n3->n2:80=timeout n3->root:22=ok n3->root:80=ok n1->root:9999=ok n2->root:9999=timeout" \
		"$(verdicts_of rules)"
	sleep 0.3
	r=$(($(ns_retrans root $NSS) - r0))
	tables counters
	ns_log retrans-rules $r
	ns_expect_match "n1's INPUT counters (2 SYNs dropped, 2 connects of 3 packets)" \
		"^ +2 +[0-9]+ DROP .*dpt:22 ?$" "$(ip netns exec n1 iptables-legacy -L INPUT -n -v -x)"
	ns_expect_match "n1's INPUT counters (2 SYNs dropped, 2 connects of 3 packets)" \
		"^ +6 +[0-9]+ ACCEPT .*dpt:80 ?$" "$(ip netns exec n1 iptables-legacy -L INPUT -n -v -x)"
	ns_expect_match "the host's FORWARD counter (n3's 4 probes to n1 and n2: 1 + 3 + 3 + 1 packets)" \
		"^ +8 +[0-9]+ +(all|0) " "$(iptables-legacy -L FORWARD -n -v -x)"
	ns_expect_match "the host's drop of n1's address (no packet of its own)" \
		"^ +0 +0 DROP .*10\.1\.1\.2 +tcp dpt:80 ?$" "$(iptables-legacy -L INPUT -n -v -x)"
	for ns in root $NSS; do ns_log names "$ns after traffic: $(ns_names ${ns#root})"; done

	# n1 flushed: n2 keeps its rules
	ns_run rules ip netns exec n1 iptables-legacy -F
	PHASE=flushed probes
	ns_expect "verdicts after n1's flush" \
		"root->n1:22=ok root->n1:80=ok root->n2:22=ok root->n2:80=timeout n3->n1:22=ok n3->n1:80=ok n3->n2:22=ok n3->n2:80=timeout n3->root:22=ok n3->root:80=ok n1->root:9999=ok n2->root:9999=timeout" \
		"$(verdicts_of flushed)"

	# the namespace's tables go with it: a new n1 starts with none
	kill $SERVERS 2>/dev/null
	wait 2>/dev/null
	ip netns del n1
	ip netns add n1
	ns_log names "n1 created again: $(ns_names n1)"
	ns_expect "the new n1's tables" "(none)" "$(ns_names n1)"
	ns_run again ip netns exec n1 iptables-legacy -S
	ns_run again ip netns exec n1 iptables-legacy -L -n -v -x
	ns_run again ip netns exec n2 iptables-legacy -S
	ns_log names "root at the end: $(ns_names)"
	for ns in $NSS; do ip netns del $ns; done
	ip link del v1 2>/dev/null	# gone with n1 (the first one)
	ip link del v2 2>/dev/null
	ip link del v3 2>/dev/null
	iptables-legacy -F
}

verdict_tools
ns_first_engine
run
for p in names first rules verdicts counters; do ns_show $p; done
ns_second_engine
dmesg_mark
run
for p in names first rules verdicts again; do ns_compare $p; done
rr=$(cat "$NS_OUT"/retrans-rules.*)
if [ "$(echo $rr)" = "0 0" ]; then
	ns_compare counters
else
	skip_part netns-isolation/counters "TCP segments retransmitted during the probes ($(echo $rr)): counters differ by timing"
fi
ns_finish
