#!/bin/bash
# Differential test: the iptables-legacy sessions in tests/ipt/sessions/
# run once against the kernel's ip_tables and once against ebpfilter, in
# this guest; transcripts (commands, outputs, exit codes) must be
# identical.  Ends with "N passed, N failed" over the sessions.
# run-all-cost: 330
# run-all-timeout: 1200
# run-all-tier: smoke (there: the sessions of every table and of errors)
. tests/guest/ipt-lib.sh

# IPT_SESSIONS="a.cmds b.cmds" runs only those (debugging)
if [ -z "${IPT_SESSIONS-}" ] && [ "${EBPF_TIER-}" = smoke ]; then
	IPT_SESSIONS="tests/ipt/sessions/tables.cmds tests/ipt/sessions/errors.cmds"
fi
sessions=()
for s in ${IPT_SESSIONS:-tests/ipt/sessions/*.cmds}; do
	ipt_drop_unenforceable <"$s" >"$IPT_OUT/$(basename "$s")"
	sessions+=("$IPT_OUT/$(basename "$s")")
done
ebpf_has_ct || note "state/conntrack rules left out: refused on this kernel (ipt-refusals.sh)"
tests/ipt/gen-ruleset 1000 | ipt_drop_unenforceable >"$IPT_OUT/big-1000.rules" || fail "gen-ruleset"
tests/ipt/gen-ruleset 10000 | ipt_drop_unenforceable >"$IPT_OUT/big-10000.rules" || fail "gen-ruleset"
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
use_ebpfilter
run_all ebpfilter

passed=0 failed=0
for s in "${sessions[@]}"; do
	name=$(basename "$s" .cmds)
	if diff -u "$IPT_OUT/$name.ip_tables" "$IPT_OUT/$name.ebpfilter" \
		>"$IPT_OUT/$name.diff"; then
		passed=$((passed + 1))
		echo "PASS ipt-diff/$name ($(grep -c '^\$ ' "$IPT_OUT/$name.ip_tables") commands)"
	else
		failed=$((failed + 1))
		echo "FAIL ipt-diff/$name"
		head -n 60 "$IPT_OUT/$name.diff"
	fi
done
ipt_reset
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
