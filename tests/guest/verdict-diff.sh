#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential verdict suite: every rule set of tests/verdict/*.rules is
# loaded with iptables-legacy-restore under the kernel's ip_tables, the
# probe matrix tests/verdict/probes.txt (TCP connects, UDP, ICMP, fragments;
# INPUT/OUTPUT between namespace c and the guest, FORWARD a <-> b through
# the guest) runs, and the verdicts and `iptables-legacy-save -c` counters
# are recorded; then the same under ebpfilter, in the same boot.  Verdicts,
# packet and byte counters, and the lines LOG rules write (prefixes "vd-")
# must be identical, but for the tc mechanism's
# differences pinned per rule set and probe/rule in
# tests/verdict/known-tc.txt (expectations derived from ip_tables' results;
# a pinned difference that does not occur fails too).
#
# Rule sets using state/conntrack on a kernel where ebpfilter refuses them
# (tc mechanism, 6.1): the refusal (iptables' error and the helper's dmesg
# reason) is asserted and that rule set is reported as skipped
# ("SKIP verdict/NAME: ..."; run-all counts it as skipped, not passed).
#
# A rule set whose probe run stalled three times (see probe()) is a timing
# failure: if the comparison then fails, the test exits 75 (lib.sh
# timing_fail) and run-all reruns it once in a fresh guest.  So is a
# comparison whose only differences are late replies (compare.py's exit
# 3: RSTs or ICMP errors ebpfilter's run did not get within 800 ms, every
# counter equal).
#
# IPT_FAMILY=6 (ip6-verdict.sh): the rule sets and probes of
# tests/verdict6/ over the topology's IPv6 network, ip6_tables against
# ebpfilter with ipv6=1 (skipped when the module has no ipv6 parameter).
#
# VERDICT_SETS="tests/verdict/03-iface.rules ..." runs a subset.
# Output: one line per rule set, then "verdict-diff: N rule sets, ..." and
# "N passed, N failed".  Artifacts: $IPT_OUT/verdict/ (copied to the run dir).
# run-all-cost: 180
# run-all-tier: smoke (there and in the reduced tier: a subset of the sets,
# smoke_sets)
. tests/verdict/lib.sh

suite=tests/verdict
if [ "$IPT_FAMILY" = 6 ]; then
	suite=tests/verdict6
	[ "${VERDICT_BOTH_IP_TABLES:-}" = 1 ] || ipt6_require_module
fi

# In the reduced and smoke tiers (tests/run-all: every kernel but the one
# that runs every part) one set per kind of rule: the codegen's, state,
# kernel extensions, every table; IPv6: the base match, extension headers,
# state/REJECT, every table, classified and set-like runs.
smoke_sets="01-counting 10-state 17-classified 18-reject 22-every-extension 23-chains-kernel
	24-nat 25-mangle-raw-security"
[ "$IPT_FAMILY" = 6 ] && smoke_sets="01-basic 03-exthdr 04-state-reject 06-nat-mangle-raw 07-classified
	08-runs"
# The core tier runs the other IPv4 sets (each set runs in make check on
# one of Debian 12's kernels at least) and every IPv6 set: only there are
# IPv6 rules walked by the module (ipv6_bpf=0).
if [ -z "${VERDICT_SETS-}" ] && tier_core; then
	if [ "$IPT_FAMILY" != 6 ]; then
		VERDICT_SETS=$(ls "$suite"/*.rules | grep -Fv "$(printf '/%s.rules\n' $smoke_sets)")
	fi
elif [ -z "${VERDICT_SETS-}" ] && tier_reduced; then
	VERDICT_SETS=$(for s in $smoke_sets; do printf '%s/%s.rules ' "$suite" "$s"; done)
fi
sets=(${VERDICT_SETS:-$suite/*.rules})
probes=$suite/probes.txt
out=$IPT_OUT/verdict
mkdir -p "$out"
verdict_tools
trap topo_teardown EXIT
topo_setup || fail "topology"
topo_servers "$VPROBE"
# tc mechanism (no netfilter BPF links before 6.4): local fragmented
# datagrams are left out of the matrix except in 12-fragments, which pins
# how tc sees them (tests/verdict/known-tc.txt)
tc_kernel=0
[ "$(ebpf_mech)" = tc ] && tc_kernel=1
grep -v local-frag $probes >"$out/probes-nofrag.txt"

# TCP segments retransmitted so far in the topology's namespaces (read
# through the listeners there, with builtins: no process per namespace,
# none per call; each file has a "Tcp:" line of names, then one of values)
tcp_retrans() {
	local p f col s=0
	for p in $TOPO_SERVERS; do
		col=
		while read -r -a f; do
			[ "${f[0]}" = Tcp: ] || continue
			if [ -z "$col" ]; then
				for col in "${!f[@]}"; do
					[ "${f[col]}" = RetransSegs ] && break
				done
			else
				s=$((s + f[col]))
				break
			fi
		done <"/proc/$p/net/snmp"
	done
	echo $s
}

run=0
# probe LABEL [PROBES [SETTLE]]: the probe matrix, then SETTLE s (0.3: the
# trailing RSTs) for late packets to be counted.  1 if the run cannot be
# compared: the guest stalled (see vprobe) or a TCP segment was
# retransmitted (none is in a run at speed: a stall of more than the
# 200 ms minimum RTO, which adds packets to one backend's counters only).
probe() {
	local rc r
	run=$((run + 1))
	r=$(tcp_retrans)
	"$VPROBE" run "${2:-$probes}" $run 800 >"$out/$1.verdicts"
	rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || fail "vprobe failed ($rc)"
	sleep "${3:-0.3}"
	r=$(($(tcp_retrans) - r))
	[ $r = 0 ] || note "$1: $r TCP segments retransmitted"
	# Every probe without an answer (lo's included) is a guest that did
	# not run its listeners within the 800 ms, not a verdict: on a
	# loaded host (load 10 on 2 CPUs) whole IPv6 runs timed out so, in
	# either pass, while the run before and after answered
	if ! grep -v ' error:' "$out/$1.verdicts" | grep -qv ' timeout$'; then
		note "$1: every probe timed out"
		return 1
	fi
	[ $rc = 0 ] && [ $r = 0 ]
}

# Warm-up without rules: neighbours resolved, listeners answering.
probe warmup
probe warmup2 || probe warmup2
if grep -Ev ' (ok|refused)$' "$out/warmup2.verdicts"; then
	cat "$out/warmup2.verdicts"
	fail "the topology does not answer every probe without rules"
fi

# One commit back to empty ACCEPT chains (ipt_reset makes seven).
EMPTY='*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT'
# ... and every other table that exists flushed (a restore without
# --noflush empties a table and deletes its user chains; their policies
# are ACCEPT in every rule set)
reset_one() {
	local t
	{
		echo "$EMPTY"
		for t in $(grep -vx filter $IPT_NAMES); do
			printf '*%s\nCOMMIT\n' "$t"
		done
	} | $IPT-restore
}

run_backend() {	# BACKEND
	local b=$1 s name try
	for s in "${sets[@]}"; do
		name=$(basename "$s" .rules)
		SECONDS=0
		reset_one || fail "reset before $name on $b"
		for try in 1 2 3; do
			dmesg_mark
			# a restore without -c starts every counter at zero
			if ! $IPT-restore <"$s" >"$out/$name.$b.restore" 2>&1; then
				echo "refused" >"$out/$name.$b.status"
				dmesg_since_mark >"$out/$name.$b.dmesg"
				break
			fi
			echo "loaded" >"$out/$name.$b.status"
			# kmod compiles every hook, those with LOG/REJECT/...
			# rules too (the program stops there, the module walks
			# on): what it left to a whole walk, and programs the
			# module found returning nonsense
			dmesg_since_mark | grep -E 'not compiled|a program returned' \
				>"$out/$name.$b.walked"
			pf=$probes
			[ $tc_kernel = 1 ] && [ "$name" != 12-fragments ] && pf=$out/probes-nofrag.txt
			# 1.5 s: fragment queues time out (1 s, topology.sh)
			# and their ICMP errors are counted in this set's run
			# no entry of an earlier run for a probe to reuse: its
			# ephemeral port repeats from run to run
			# (tests/verdict/ct-flush.py); never loads conntrack
			if [ -e /proc/net/nf_conntrack ]; then
				python3 tests/verdict/ct-flush.py || fail "conntrack flush"
			fi
			# conntrack entries a probe may meet (compare.py shows a
			# mismatching probe's): a stale one changes its fate
			cat /proc/net/nf_conntrack >"$out/$name.$b.conntrack" 2>/dev/null
			probe "$name.$b" "$pf" 1.5
			rc=$?
			# LOG lines of the run (rule sets use "vd-" prefixes):
			# sorted (probes run in parallel), what differs between
			# two runs of the same packet masked
			dmesg_since_mark | grep -o 'vd-[a-z0-9]*: .*' |
				sed -E 's/ ID=[0-9]+/ ID=*/g; s/ SPT=[0-9]+/ SPT=*/; s/ FLOWLBL=[0-9]+/ FLOWLBL=*/; s/ ID:[0-9a-f]+/ ID:*/' |
				sort >"$out/$name.$b.log"
			[ $rc = 0 ] && break
			note "$name on $b: the guest stalled, again"
			[ $try = 3 ] && echo "$name on $b" >>"$out/stalled"
		done
		ipt_save_c "$s" >"$out/$name.$b.save"
		note "$name on $b: $(cat "$out/$name.$b.status"), ${SECONDS}s"
	done
	reset_one
}

# Unload module @1 and, first, every module holding it.
unload_with_holders() {
	local h
	[ -d "/sys/module/$1" ] || return 0
	for h in $(ls "/sys/module/$1/holders"); do
		unload_with_holders "$h" || return 1
	done
	modprobe -r "$1"
}

use_ip_tables
run_backend ip_tables
leave_ip_tables
# Before v5.13 (2021-04, nf_defrag_ipv4_disable()) a netns keeps IPv4
# defragmentation once conntrack enabled it (ip_tables' pass of 10-state):
# the second pass's FORWARD would see datagrams where the first saw
# fragments.  On such a kernel (5.10) the second pass starts as the first
# did: defrag unloaded with everything holding it (IPv6: nf_defrag_ipv6).
defrag=nf_defrag_ipv4
[ "$IPT_FAMILY" = 6 ] && defrag=nf_defrag_ipv6
case $(uname -r) in
[1-4].* | 5.[0-9].* | 5.1[0-2].*)
	if ! unload_with_holders $defrag; then
		fail "cannot unload $defrag (5.10 keeps defrag on): the passes would differ"
	fi
	;;
esac
if [ "${VERDICT_BOTH_IP_TABLES:-}" = 1 ]; then
	# run-guest --env VERDICT_BOTH_IP_TABLES=1: the reference twice (its
	# results filed as "ebpfilter"), the check that a rule set compares
	# equal when the engines behave alike (nothing left to timing)
	note "VERDICT_BOTH_IP_TABLES=1: the second run is ip_tables again, not ebpfilter"
	use_ip_tables
	mech=ip_tables
else
	use_ebpfilter
	mech=$(verdict_mech)
	# IPv6: walked or compiled (use_ebpfilter: ipv6_bpf=0 in the core tier)
	[ "$IPT_FAMILY" = 6 ] &&
		note "ebpfilter ipv6_bpf: $(cat /sys/module/ebpfilter/parameters/ipv6_bpf 2>/dev/null)"
fi
note "ebpfilter enforcement: ${mech:-unknown}"
run_backend ebpfilter
cp -r "$out" /run/run-guest/ 2>/dev/null
reset_one
if lsmod | grep -q '^ebpfilter '; then
	modprobe -r ebpfilter || fail "cannot unload ebpfilter"
fi
if [ "$mech" = kmod ]; then
	for f in "$out"/*.ebpfilter.walked; do
		[ -s "$f" ] && fail "$(basename "$f" .ebpfilter.walked): $(head -n 3 "$f")"
	done
fi
python3 tests/verdict/compare.py "$out" "${mech:-unknown}" "${sets[@]}"
rc=$?
[ $rc = 0 ] && exit 0
[ -s "$out/stalled" ] && timing_fail "the comparison failed after runs that stalled three times: $(tr '\n' ',' <"$out/stalled")"
[ $rc = 3 ] && timing_fail "the only differences were replies later than vprobe's 800 ms under ebpfilter (compare.py)"
exit 1
