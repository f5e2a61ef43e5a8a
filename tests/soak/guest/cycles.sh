#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part cycles: SOAK_CYCLES load/unload cycles, each committing
# rules to every table (so programs, maps, links and hooks exist).
# Checked after every unload: no module, helper, mount, open image file,
# BPF program, map or link of ours, and the module references of the
# netfilter modules back to what they were; at the end: AF_UNIX sockets,
# processes and fds back, slab (SUnreclaim) and vmalloc (module memory)
# within a bound of the start.  Prints where a cycle's time goes
# (modprobe, the six rule changes, rmmod, the checks).  The helper
# restarts are part restarts (restarts.sh): together they took 3-5 h per
# kernel, more than a session, and each alone fits.
. tests/soak/guest/lib-soak.sh
N=${SOAK_CYCLES:-50}
ebpf_install

# t_load, t_rules, t_unload, t_checks: microseconds spent, all cycles
reset_timers() { t_load=0 t_rules=0 t_unload=0 t_checks=0; }
reset_timers
cycle() {
	local a b c d
	a=$(now_us)
	modprobe ebpfilter || fail "modprobe failed in cycle $1"
	b=$(now_us)
	[ "$(helper_count)" = 1 ] || fail "cycle $1: $(helper_count) helpers"
	$IPT -w -A INPUT -p tcp --dport 22 -j ACCEPT &&
		$IPT -w -A OUTPUT -m comment --comment soak -j ACCEPT &&
		$IPT -w -t nat -A PREROUTING -p tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80 &&
		$IPT -w -t mangle -A PREROUTING -p udp -j MARK --set-mark 1 &&
		$IPT -w -t raw -A PREROUTING -p udp --dport 53 -j ACCEPT &&
		$IPT -w -t security -A OUTPUT -j ACCEPT || fail "cycle $1: rules not committed"
	c=$(now_us)
	modprobe -r ebpfilter || fail "rmmod failed in cycle $1"
	d=$(now_us)
	assert_nothing_left
	t_load=$((t_load + b - a)) t_rules=$((t_rules + c - b))
	t_unload=$((t_unload + d - c)) t_checks=$((t_checks + $(now_us) - d))
}
# one cycle to warm up (modules the rules need stay loaded afterwards)
cycle 0
b0=$(bpf_objs) || exit 1
r0=$(nf_refs); before=$(snapshot)
t0=$(date +%s)
reset_timers
for i in $(seq 1 "$N"); do
	cycle "$i"
	c0=$(now_us)
	b=$(bpf_objs) || exit 1
	[ "$b" = "$b0" ] || fail "cycle $i: BPF objects (prog map link) $b0 -> $b"
	[ "$(nf_refs)" = "$r0" ] || fail "cycle $i: module references $r0 -> $(nf_refs)"
	t_checks=$((t_checks + $(now_us) - c0))
	[ $((i % 100)) = 0 ] && echo "cycle $i of $N: $(($(date +%s) - t0)) s"	# progress
done
t1=$(date +%s)
leaks_since "$before" "$N"
echo "after $N cycles: $figures"

result=PASS
[ -z "$leaks" ] || result=FAIL
per() { echo $(($1 / (N > 0 ? N : 1) / 1000)); }
counts="$N load/unload cycles in $((t1 - t0)) s (every table's rules each; ms a cycle: modprobe $(per $t_load), 6 rule changes $(per $t_rules), rmmod $(per $t_unload), checks $(per $t_checks)); $figures; BPF objects $b0 each cycle; left:${leaks:- nothing}"
echo "SOAK-RESULT cycles $result $counts"
[ $result = PASS ] || fail "cycles: $counts"
