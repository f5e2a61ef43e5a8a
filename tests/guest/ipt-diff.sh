#!/bin/bash
# Differential test: the iptables-legacy sessions in tests/ipt/sessions/
# run once against the kernel's ip_tables and once against ebpfilter, in
# this guest; transcripts (commands, outputs, exit codes) must be
# identical.  Ends with "N passed, N failed" over the sessions.
# IPT_FAMILY=6 (ip6-diff.sh): the ip6tables-legacy sessions of
# tests/ipt6/sessions/ against ip6_tables and ebpfilter with ipv6=1.
# IPT_BOTH_IP_TABLES=1 (run-guest --env): the reference twice, its second
# run filed as "ebpfilter": the check that the sessions compare equal when
# the engines behave alike.
# run-all-cost: 200
# run-all-timeout: 1200
# run-all-tier: smoke (there and in the reduced tier: the sessions of every
# table and of errors)
. tests/guest/ipt-lib.sh

test_name=ipt-diff sessions_dir=tests/ipt/sessions gen_opt=
if [ "$IPT_FAMILY" = 6 ]; then
	test_name=ip6-diff sessions_dir=tests/ipt6/sessions gen_opt=-6
	[ "${IPT_BOTH_IP_TABLES:-}" = 1 ] || ipt6_require_module
fi
# IPT_SESSIONS="a.cmds b.cmds" runs only those (debugging)
# The other tiers run the sessions of every table and errors; the core tier
# the rest, so make check runs every session on one of Debian 12's kernels.
if [ -z "${IPT_SESSIONS-}" ] && tier_core; then
	IPT_SESSIONS=$(ls "$sessions_dir"/*.cmds | grep -Ev '/(tables|errors)\.cmds$')
elif [ -z "${IPT_SESSIONS-}" ] && tier_reduced; then
	IPT_SESSIONS="$sessions_dir/tables.cmds $sessions_dir/errors.cmds"
fi
sessions=()
for s in ${IPT_SESSIONS:-$sessions_dir/*.cmds}; do
	ipt_drop_unenforceable <"$s" >"$IPT_OUT/$(basename "$s")"
	sessions+=("$IPT_OUT/$(basename "$s")")
done
ebpf_has_ct || note "state/conntrack rules left out: refused on this kernel (ipt-refusals.sh)"
# the big rule sets (half a minute of generating under TCG) only for the
# sessions that restore them
for n in $(grep -ho 'big-[0-9][0-9]*' "${sessions[@]}" | sort -u | cut -d- -f2); do
	tests/ipt/gen-ruleset $gen_opt $n | ipt_drop_unenforceable >"$IPT_OUT/big-$n.rules" ||
		fail "gen-ruleset"
done
export IPT_OUT

run_all() {
	local backend=$1 s name
	for s in "${sessions[@]}"; do
		name=$(basename "$s" .cmds)
		ipt_reset || fail "reset before $name on $backend"
		SECONDS=0
		run_session "$s" >"$IPT_OUT/$name.$backend"
		note "$name on $backend: ${SECONDS}s"
	done
}

use_ip_tables
run_all ip_tables
leave_ip_tables
if [ "${IPT_BOTH_IP_TABLES:-}" = 1 ]; then
	note "IPT_BOTH_IP_TABLES=1: the second run is $IPT_CORE again, not ebpfilter"
	use_ip_tables
else
	use_ebpfilter
fi
run_all ebpfilter

passed=0 failed=0
for s in "${sessions[@]}"; do
	name=$(basename "$s" .cmds)
	if diff -u "$IPT_OUT/$name.ip_tables" "$IPT_OUT/$name.ebpfilter" \
		>"$IPT_OUT/$name.diff"; then
		passed=$((passed + 1))
		echo "PASS $test_name/$name ($(grep -c '^\$ ' "$IPT_OUT/$name.ip_tables") commands)"
	else
		failed=$((failed + 1))
		echo "FAIL $test_name/$name"
		head -n 60 "$IPT_OUT/$name.diff"
	fi
done
ipt_reset
if [ "${IPT_BOTH_IP_TABLES:-}" = 1 ]; then
	leave_ip_tables
else
	modprobe -r ebpfilter || fail "cannot unload ebpfilter"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
