#!/bin/bash
# Nothing lost: after kill -9 of the helper, the restarted helper serves the
# same rules and counters of every table (the state it saved in the module's vault); a
# rejected SET_REPLACE afterwards leaves them untouched; and a helper killed
# after saving a change but before its reply reached the module leaves the
# caller with an error and the previous tables in force, not the new ones.
# run-all-tier: smoke
. tests/guest/ipt-lib.sh

use_ebpfilter
ipt_reset || fail "reset"
tests/ipt/gen-ruleset 300 | ipt_drop_unenforceable | sed 's/^-A/[3:300] -A/' >"$IPT_OUT/r.rules"
iptables-legacy-restore -c <"$IPT_OUT/r.rules" || fail "restore"
$IPT -A INPUT -m comment --comment "after restore" -j ACCEPT || fail "append"
$IPT -Z FORWARD || fail "zero"
# every table keeps its rules, counters and place (the save's order is
# /proc/net/ip_tables_names'): made in this order, with counters
$IPT -t raw -A OUTPUT -p udp --dport 53 -c 7 700 -j CT --notrack || fail "raw rule"
$IPT -t nat -A POSTROUTING -s 10.0.0.0/8 -o lo -c 5 500 -j MASQUERADE || fail "nat rule"
$IPT -t nat -A PREROUTING -d 10.9.0.1 -p tcp --dport 80 -j DNAT --to-destination 10.9.0.2:8080 ||
	fail "nat DNAT rule"
$IPT -t mangle -A PREROUTING -p tcp --dport 22 -c 3 300 -j MARK --set-mark 3 || fail "mangle rule"
[ "$(tr '\n' ' ' </proc/net/ip_tables_names)" = "mangle nat raw filter " ] ||
	fail "table order: $(tr '\n' ' ' </proc/net/ip_tables_names)"
# save: iptables-legacy-save -c, normalized, into FILE; fails on save's
# own status (not only the last command of the pipe's)
save() {
	local raw
	raw=$(iptables-legacy-save -c) || fail "iptables-legacy-save -c failed ($1)"
	printf '%s\n' "$raw" | ipt_normalize >"$IPT_OUT/$1"
}
# kill_restart N: save, kill -9 the helper, save again (which a new helper
# serves); the two saves must be equal
kill_restart() {
	local old
	save before$1
	old=$(helper_pids)
	[ -n "$old" ] || fail "no helper before kill $1"
	kill -9 $old
	save after$1
	assert_new_helper "$old"
	diff -u "$IPT_OUT/before$1" "$IPT_OUT/after$1" || fail "state lost in restart $1"
	grep -q '^\*mangle' "$IPT_OUT/after$1" || fail "no mangle table in the save after restart $1"
}
kill_restart 1
# twice in a row, with a change in between
$IPT -D INPUT -m comment --comment "after restore" -j ACCEPT || fail "delete"
kill_restart 2
# a replace the kernel side rejects (a loop: ELOOP) changes nothing
printf '*filter\n:la - [0:0]\n:lb - [0:0]\n-A la -j lb\n-A lb -j la\n-A INPUT -j la\nCOMMIT\n' |
	iptables-legacy-restore -n && fail "a restore with a loop succeeded"
save after3
diff -u "$IPT_OUT/before2" "$IPT_OUT/after3" || fail "a rejected restore changed the table"
# `iptables -A` makes three requests: GET_INFO, GET_ENTRIES, SET_REPLACE.
# strace kills the helper at its third reply (writev), after the change was
# committed and saved, before the module heard of it.
command -v strace >/dev/null || fail "strace is not installed"
# (Three deaths within 10 s of their starts throttle restarts: let this
# helper live that long, or its death would be refused a restart.)
sleep 10
pid=$(helper_pids)
strace -qq -o /dev/null -p "$pid" -e trace=writev -e inject=writev:signal=KILL:when=3 &
tracer=$!
wait_for 10 grep -q '^TracerPid:[[:space:]]*[1-9]' "/proc/$pid/status" || fail "strace did not attach"
dmesg_mark
$IPT -A INPUT -s 10.99.0.1 -j ACCEPT && fail "append succeeded although the helper died before answering"
wait $tracer
save after4
assert_new_helper "$pid"
diff -u "$IPT_OUT/before2" "$IPT_OUT/after4" || fail "an unacknowledged change survived the restart"
dmesg_since_mark | grep -q 'a newer change was saved but never acknowledged' ||
	fail "the restarted helper did not say it dropped the unacknowledged change"
ipt_reset
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
echo "PASS ipt-restart: $(grep -c -- '^\[' "$IPT_OUT/before1") rules and counters survived two kill -9; an unacknowledged change did not"
