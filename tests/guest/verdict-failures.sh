#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Failure behaviour of the enforcement, with real traffic (topology of
# tests/verdict/topology.sh, probes tests/verdict/failures/probes.txt):
#  1. rule sets refused late, by the kernel's own extension checks when the
#     module installs what the helper compiled (a match used from a hook it
#     does not allow; a REJECT option its checkentry refuses), fail the
#     restore, dmesg says why, and the rules in force before stay in force
#     (probes and iptables-legacy-save before/after);
#  2. kill -9 of the helper while probes run in a loop (and once in the
#     middle of a commit): every round sees exactly the verdicts of the
#     rules (nothing accepted is dropped, nothing dropped passes);
#  3. after rmmod ebpfilter: bpftool prog/map/link show list none of its
#     objects, no tc filter is left on any interface, and the clsact
#     qdiscs are those from before the load (tc: it removes the ones it
#     added, even after helper restarts, and keeps lo's, added before).
# Ends with "N passed, N failed".
# run-all-cost: 45
. tests/verdict/lib.sh

F=tests/verdict/failures
out=$IPT_OUT/failures
mkdir -p "$out"
verdict_tools
trap topo_teardown EXIT
topo_setup || fail "topology"
topo_servers "$VPROBE"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "PASS verdict-failures/$*"; }
ko() { failed=$((failed + 1)); echo "FAIL verdict-failures/$*"; }

run=2000
# check LABEL: one probe round against the expected verdicts; 0 if equal
check() {
	run=$((run + 1))
	"$VPROBE" run $F/probes.txt $run 800 >"$out/$1.verdicts"
	diff -u $F/base.expect "$out/$1.verdicts" >"$out/$1.diff"
}

ids() {	# prog|map|link: the object ids bpftool lists (fails if bpftool does)
	local out
	out=$(bpftool "$1" show 2>&1) || fail "bpftool $1 show failed: $out"
	printf '%s\n' "$out" | sed -n 's/^\([0-9][0-9]*\): .*/\1/p' | sort
}
tc_filters() {
	local d
	for d in lo vethc fwa fwb; do
		tc filter show dev $d ingress 2>/dev/null | sed "s/^/$d ingress: /"
		tc filter show dev $d egress 2>/dev/null | sed "s/^/$d egress: /"
	done
}

clsacts() {	# the interfaces with a clsact qdisc
	tc qdisc show 2>/dev/null | sed -n 's/^qdisc clsact [^ ]* dev \([^ ]*\) .*/\1/p' | sort
}

# warm-up without any firewall (neighbours)
"$VPROBE" run $F/probes.txt 1999 800 >/dev/null
# A clsact someone else made stays after rmmod; the ones ebpfilter adds go.
tc qdisc add dev lo clsact || fail "cannot add a clsact qdisc to lo"
clsacts >"$out/clsact.before"
ids prog >"$out/prog.before"
ids map >"$out/map.before"
ids link >"$out/link.before"

use_ebpfilter
mech=$(verdict_mech)
note "ebpfilter enforcement: ${mech:-unknown}"
iptables-legacy-restore <$F/base.rules || fail "cannot load the base rules"
if check base; then
	ok "base: the base rules give the expected verdicts"
else
	ko "base: unexpected verdicts under the base rules"
	cat "$out/base.diff"
fi

# ---- 1. rejected rule sets leave the old rules in force
ipt_save_c | sed 's/^\[[0-9]*:[0-9]*\] //; s/ \[[0-9]*:[0-9]*\]$//' >"$out/save.before"
for r in reject-hook reject-check; do
	dmesg_mark
	if iptables-legacy-restore <$F/$r.rules >"$out/$r.restore" 2>&1; then
		ko "$r: the restore succeeded (expected a refusal)"
		iptables-legacy-restore <$F/base.rules
		continue
	fi
	why=$(dmesg_since_mark | grep -o 'table filter not replaced: .*' | head -n1)
	ipt_save_c | sed 's/^\[[0-9]*:[0-9]*\] //; s/ \[[0-9]*:[0-9]*\]$//' >"$out/save.after"
	if [ -z "$why" ]; then
		ko "$r: refused, but dmesg gives no reason"
	elif ! diff -u "$out/save.before" "$out/save.after"; then
		ko "$r: the refused restore changed the table"
	elif ! check "after-$r"; then
		ko "$r: the old rules are no longer in force after the refusal"
		cat "$out/after-$r.diff"
	else
		ok "$r: refused (iptables: '$(head -n1 "$out/$r.restore")'; dmesg: '$why'); old rules still in force"
	fi
done

# ---- 2. kill -9 of the helper during traffic
rounds=${VERDICT_KILL_ROUNDS:-12}
(
	for i in $(seq 1 "$rounds"); do
		check "kill-round-$i" || echo "round $i differs" >>"$out/kill.bad"
		echo "$i" >"$out/kill.progress"
	done
) &
loop=$!
kills=0
while kill -0 $loop 2>/dev/null; do
	sleep 0.7
	p=$(helper_pids)
	[ -n "$p" ] && kill -9 $p && kills=$((kills + 1))
	sleep 1.5	# the helper stays dead for a while, traffic goes on
	if [ $kills = 2 ]; then
		# a commit (of the same rules) that the kill interrupts
		iptables-legacy-restore <$F/base.rules 2>/dev/null &
		sleep 0.3
		p=$(helper_pids)
		[ -n "$p" ] && kill -9 $p && kills=$((kills + 1))
		wait $!
	else
		$IPT -w -S >/dev/null 2>&1	# restarts it (unless throttled)
	fi
done
wait $loop
done_rounds=$(cat "$out/kill.progress" 2>/dev/null)
if [ -s "$out/kill.bad" ]; then
	ko "kill-9: $(wc -l <"$out/kill.bad") of $done_rounds probe rounds saw other verdicts ($kills kills)"
	for f in "$out"/kill-round-*.diff; do
		[ -s "$f" ] && { echo "$f:"; grep '^[-+][a-z]' "$f"; }
	done | head -n 30
elif [ "$kills" -lt 2 ] || [ "${done_rounds:-0}" != "$rounds" ]; then
	ko "kill-9: only $kills kills, ${done_rounds:-0}/$rounds rounds"
else
	ok "kill-9: $rounds probe rounds x $(grep -c '^[a-z]' $F/probes.txt) probes, $kills kills of the helper (one inside a commit): every verdict as the rules say"
fi
# the rules are still served after all that
wait_for 70 $IPT -w -S >/dev/null 2>&1 || fail "no helper serves requests after the kills"
check after-kills || ko "kill-9: verdicts changed after the helper came back"

# ---- 3. rmmod removes everything
ids prog >"$out/prog.loaded"
ids map >"$out/map.loaded"
ids link >"$out/link.loaded"
tc_filters >"$out/tc.loaded"
clsacts >"$out/clsact.loaded"
note "while loaded: $(comm -13 "$out/prog.before" "$out/prog.loaded" | wc -l) progs," \
	"$(comm -13 "$out/map.before" "$out/map.loaded" | wc -l) maps," \
	"$(comm -13 "$out/link.before" "$out/link.loaded" | wc -l) links," \
	"$(grep -c 'bpf' "$out/tc.loaded") tc filter lines"
[ "$(comm -13 "$out/prog.before" "$out/prog.loaded" | wc -l)" -gt 0 ] ||
	ko "rmmod: no BPF program of ebpfilter visible while loaded (bpftool broken?)"
iptables-legacy-restore <$F/base.rules
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
assert_nothing_left
left=
for k in prog map link; do
	ids $k >"$out/$k.after"
	x=$(comm -13 "$out/$k.before" "$out/$k.after" | tr '\n' ' ')
	[ -n "$x" ] && left="$left $k ids: $x;"
done
tc_filters >"$out/tc.after"
[ -s "$out/tc.after" ] && left="$left tc filters: $(tr '\n' ' ' <"$out/tc.after");"
clsacts >"$out/clsact.after"
[ "$mech" = tc ] && ! comm -13 "$out/clsact.before" "$out/clsact.loaded" | grep -q . &&
	ko "tc: no clsact qdisc added while loaded (nothing to check the removal with)"
cmp -s "$out/clsact.before" "$out/clsact.after" ||
	left="$left clsact qdiscs: before $(tr '\n' ' ' <"$out/clsact.before")after $(tr '\n' ' ' <"$out/clsact.after");"
if [ -n "$left" ]; then
	ko "rmmod: objects left:$left"
	bpftool prog show; bpftool map show; bpftool link show
else
	ok "rmmod: bpftool prog/map/link, tc filters and clsact qdiscs show nothing of ebpfilter (lo's own clsact stays)"
fi
echo "verdict-failures ($(uname -r), mechanism ${mech:-?}): $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
