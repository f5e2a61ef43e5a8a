#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Namespaces made, given rules, used and destroyed leave nothing; a helper
# killed while namespaces hold rules loses nothing (issue 17).  Under
# ip_tables, then ebpfilter, in the same boot (tests/guest/netns-lib.sh).
#
# Churn: NETNS_CHURN namespaces (default 100; run-guest --env to scale) in
# two rounds of half each: every namespace lo up and 10 filter rules from
# one iptables-legacy-restore (9 source drops that match nothing, and an
# ICMP drop of 127.0.0.1 in even namespaces, of 127.0.0.2 in odd ones);
# a ping of 127.0.0.1 in four of them (timeout/ok, and the drop rule's
# counter); then all destroyed.  Compared: the probes and counters, and
# that the kernel freed every namespace (net_namespace objects in
# /proc/slabinfo back to the baseline, within one slab's worth: SLUB counts
# the free objects of a CPU's slab as active).  ebpfilter only (part
# "leaks"): after round two, bpftool's prog and map counts equal the
# baseline taken after the module's load, the same helper pid, its open
# files as after round one and its RSS grown by at most 1024 kB since then
# (round one sets the allocator's high-water marks and whatever the first
# namespace opens once: 12 -> 18 files), AF_UNIX sockets
# as at the baseline, and the helper's open files limit at least 65,536
# (each table in force keeps fds there; with the init task's 1,024 the
# 504th namespace's restore failed with EMFILE, a scale this test does not
# reach).  Namespaces per second are printed (made with rules,
# destroyed until freed).
#
# Restart: 20 namespaces with those rules and a counting OUTPUT rule, a
# ping in each, their -S and -L -n -v -x; the helper killed with kill -9
# (ebpfilter only; under ip_tables nothing happens there); a ping in each
# while no helper runs (each namespace still enforces its own rules), then
# -S and -L -n -v -x again (the first request restarts the helper: a new
# pid); compared whole (the second listing's counters: one ping more).
# run-all-cost: 240
. tests/guest/netns-lib.sh

N=${NETNS_CHURN:-100}
# the reduced tier (tests/run-all): 30 namespaces a round, same checks
[ -z "${NETNS_CHURN-}" ] && tier_reduced && N=30
HALF=$(((N + 1) / 2))
PROBED="1 2 $((HALF / 2)) $((HALF / 2 + 1))"

ns_rules() {	# I: the 10 rules of namespace I
	local k
	echo '*filter'
	for k in 1 2 3 4 5 6 7 8 9; do
		echo "-A INPUT -s 10.77.$((I % 250)).$k -j DROP"
	done
	echo "-A INPUT -d 127.0.0.$((I % 2 + 1)) -p icmp -j DROP"
	[ "${2:-}" = count ] && echo "-A OUTPUT -o lo"
	echo COMMIT
}

ping_ns() {	# NS: ok or timeout
	if ip netns exec "$1" busybox ping -q -c 1 -W 1 127.0.0.1 >/dev/null 2>&1; then
		echo ok
	else
		echo timeout
	fi
}

drop_count() {	# NS: packets of the ICMP drop rule
	ip netns exec "$1" iptables-legacy -L INPUT -n -v -x | awk '$3 == "DROP" && $4 == "1" { print $1 }'
}

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", n / (b - a) }'; }

slab_ok() {	# BASE: net_namespace objects back to BASE (+ one slab)
	local per
	per=$(awk '$1 == "net_namespace" { print $4 }' /proc/slabinfo)
	ns_until 90 sh -c "[ \$(awk '\$1 == \"net_namespace\" { print \$2 }' /proc/slabinfo) -le $(($1 + per)) ]"
}

churn_round() {	# R
	local r=$1 i t0 t1 t2 out
	t0=$(now)
	for i in $(seq 1 $HALF); do
		ip netns add ch$i && ip -n ch$i link set lo up || fail "namespace ch$i"
		I=$i
		out=$(ns_rules | ip netns exec ch$i iptables-legacy-restore 2>&1) ||
			ns_log churn "round $r ch$i: restore failed: $(echo "$out" | head -n 1)"
	done
	t1=$(now)
	for i in $PROBED; do
		ns_log churn "round $r ch$i: ping $(ping_ns ch$i), drop rule $(drop_count ch$i) packets"
	done
	ns_log churn "round $r ch$HALF: $(ip netns exec ch$HALF iptables-legacy -S INPUT | grep -c -- '^-A') rules"
	t2=$(now)
	for i in $(seq 1 $HALF); do ip netns del ch$i; done
	if [ -n "$SLAB0" ]; then
		slab_ok "$SLAB0"
		ns_log churn "round $r: namespaces freed: $?"
	fi
	note "$ENGINE round $r: $HALF namespaces made with 10 rules each at $(rate $HALF $t0 $t1)/s, destroyed and freed at $(rate $HALF $t2 "$(now)")/s"
}

run() {
	local pid0 rss1 rss2 fds0 fds1 fds2 p0 m0 p2 m2 u0 u2 i b why out want new lim
	rm -f "$NS_OUT"/*."$ENGINE"
	SLAB0=$(ns_netns_objs)
	[ -n "$SLAB0" ] || note "no net_namespace line in /proc/slabinfo: namespaces freed not checked"
	if ns_real_ebpfilter; then
		pid0=$(helper_pids)
		p0=$(bpf_count prog .) || exit 1
		m0=$(bpf_count map .) || exit 1
		fds0=$(helper_fds "$pid0")
		u0=$(unix_sockets)
		note "baseline: helper $pid0 (RSS $(helper_rss "$pid0") kB, $fds0 files), $p0 progs, $m0 maps, $u0 AF_UNIX sockets, net_namespace objects $SLAB0, $(grep '^ebpfilter ' /proc/modules)"
	fi
	churn_round 1
	ns_is_reference && for i in $PROBED; do
		[ $((i % 2)) = 0 ] && want="ping timeout, drop rule 1 packets" || want="ping ok, drop rule 0 packets"
		ns_expect "round 1 ch$i" "round 1 ch$i: $want" "$(grep "^round 1 ch$i:" "$(ns_file churn)")"
	done
	ns_expect "round 1 ch$HALF's rules" "round 1 ch$HALF: 10 rules" "$(grep "^round 1 ch$HALF: .* rules" "$(ns_file churn)")"
	[ -z "$SLAB0" ] || ns_expect "the kernel freed round 1's namespaces" "round 1: namespaces freed: 0" \
		"$(grep '^round 1: namespaces freed' "$(ns_file churn)")"
	if ns_real_ebpfilter; then
		rss1=$(helper_rss "$pid0")
		fds1=$(helper_fds "$pid0")
	fi
	churn_round 2
	if ns_real_ebpfilter; then
		b=0 why=
		[ "$(helper_pids)" = "$pid0" ] || { b=1; why="$why helper $pid0 -> $(helper_pids);"; }
		rss2=$(helper_rss "$pid0")
		fds2=$(helper_fds "$pid0")
		p2=$(bpf_count prog .) || exit 1
		m2=$(bpf_count map .) || exit 1
		u2=$(unix_sockets)
		[ "$p2" = "$p0" ] && [ "$m2" = "$m0" ] || { b=1; why="$why progs $p0 -> $p2, maps $m0 -> $m2;"; }
		[ "$fds2" = "$fds1" ] || { b=1; why="$why helper files $fds1 -> $fds2 (baseline $fds0);"; }
		[ "$u2" = "$u0" ] || { b=1; why="$why AF_UNIX sockets $u0 -> $u2;"; }
		[ -n "$rss2" ] && [ $((rss2 - rss1)) -le 1024 ] || { b=1; why="$why RSS $rss1 -> $rss2 kB;"; }
		lim=$(awk '/^Max open files/ { print $4 }' "/proc/$pid0/limits")
		[ "${lim:-0}" -ge 65536 ] || { b=1; why="$why helper's open files limit ${lim:-?};"; }
		note "after round 2: helper RSS $rss1 -> $rss2 kB, files $fds0 -> $fds1 -> $fds2, $p2 progs, $m2 maps, $u2 AF_UNIX sockets, $(grep '^ebpfilter ' /proc/modules)"
		ns_check leaks "$why" $b
	fi

	# the helper killed while 20 namespaces hold rules
	for i in $(seq 1 20); do
		ip netns add k$i && ip -n k$i link set lo up || fail "namespace k$i"
		I=$i
		out=$(ns_rules "" count | ip netns exec k$i iptables-legacy-restore 2>&1) ||
			ns_log restart "k$i: restore failed: $(echo "$out" | head -n 1)"
	done
	for i in $(seq 1 20); do ns_log restart "k$i before: ping $(ping_ns k$i)"; done
	for i in $(seq 1 20); do
		ns_run restart ip netns exec k$i iptables-legacy -S
		ns_run restart ip netns exec k$i iptables-legacy -L -n -v -x
	done
	if ns_real_ebpfilter; then
		pid0=$(helper_pids)
		kill -9 "$pid0"
		wait_for 10 sh -c '! pgrep -x ebpfilter-umh >/dev/null' || fail "the helper did not die"
	fi
	for i in $(seq 1 20); do ns_log restart "k$i without a helper: ping $(ping_ns k$i)"; done
	for i in $(seq 1 20); do
		ns_run restart ip netns exec k$i iptables-legacy -S
		ns_run restart ip netns exec k$i iptables-legacy -L -n -v -x
		if [ $i = 1 ] && ns_real_ebpfilter; then
			new=$(helper_pids)
			b=0
			[ -n "$new" ] && [ "$new" != "$pid0" ] && [ "$(helper_count)" = 1 ] || b=1
			ns_check new-helper "no new helper after killing pid $pid0: now '$(echo $new)'" $b
		fi
	done
	if ns_is_reference; then
		for i in 1 2; do
			[ $i = 2 ] && want=timeout || want=ok
			ns_expect "k$i's pings" "k$i before: ping $want k$i without a helper: ping $want" \
				"$(grep "^k$i " "$(ns_file restart)" | xargs)"
		done
		ns_expect "k2's drop counter after both pings" 2 "$(drop_count k2)"
		ns_expect "k1's OUTPUT counter after both pings" 4 \
			"$(ip netns exec k1 iptables-legacy -L OUTPUT -n -v -x | awk 'NR == 3 { print $1 }')"
	fi
	for i in $(seq 1 20); do ip netns del k$i; done
	if [ -n "$SLAB0" ]; then
		slab_ok "$SLAB0"
		ns_log restart "namespaces freed: $?"
	fi
}

ns_first_engine
run
ns_show churn
ns_second_engine
dmesg_mark
run
for p in churn restart; do ns_compare $p; done
ns_finish
