#!/bin/bash
# Nothing lost: after kill -9 of the helper, the restarted helper serves the
# same rules and counters (from the snapshot the module kept); a rejected
# SET_REPLACE afterwards leaves them untouched.
. tests/guest/ipt-lib.sh

use_ebpfilter
ipt_reset || fail "reset"
tests/ipt/gen-ruleset 300 | ipt_drop_unenforceable | sed 's/^-A/[3:300] -A/' >"$IPT_OUT/r.rules"
iptables-legacy-restore -c <"$IPT_OUT/r.rules" || fail "restore"
$IPT -A INPUT -m comment --comment "after restore" -j ACCEPT || fail "append"
$IPT -Z FORWARD || fail "zero"
iptables-legacy-save -c | ipt_normalize >"$IPT_OUT/before" || fail "save"
old=$(helper_pids)
[ -n "$old" ] || fail "no helper"
kill -9 $old
iptables-legacy-save -c | ipt_normalize >"$IPT_OUT/after" || fail "save after kill"
new=$(helper_pids)
[ -n "$new" ] && [ "$new" != "$old" ] || fail "no new helper ($old -> $new)"
diff -u "$IPT_OUT/before" "$IPT_OUT/after" || fail "state lost in the restart"
# twice in a row, with a change in between
$IPT -D INPUT -m comment --comment "after restore" -j ACCEPT || fail "delete"
iptables-legacy-save -c | ipt_normalize >"$IPT_OUT/before2"
kill -9 $(helper_pids)
iptables-legacy-save -c | ipt_normalize >"$IPT_OUT/after2"
diff -u "$IPT_OUT/before2" "$IPT_OUT/after2" || fail "state lost in the second restart"
# a replace the kernel side rejects (a loop: ELOOP) changes nothing
printf '*filter\n:la - [0:0]\n:lb - [0:0]\n-A la -j lb\n-A lb -j la\n-A INPUT -j la\nCOMMIT\n' |
	iptables-legacy-restore -n && fail "a restore with a loop succeeded"
iptables-legacy-save -c | ipt_normalize >"$IPT_OUT/after3"
diff -u "$IPT_OUT/before2" "$IPT_OUT/after3" || fail "a rejected restore changed the table"
ipt_reset
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
echo "PASS ipt-restart: $(grep -c -- '^\[' "$IPT_OUT/before") rules and counters survived two kill -9"
