#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part kill-faults: SOAK_KILLS kill -9 of the helper and
# SOAK_FAULTS faults injected in it (the ebpfilter-umh-faults build:
# umh/lib/test_faults.c; the points commit, commit-switched, commit-live,
# reply, restore in turn), under the traffic of a probe that knows every
# packet's verdict (soak-tool probe: filter OUTPUT drops UDP to
# 127.0.0.1:9999 and accepts :9998) and of a writer committing a rule at
# a time.  Checked: 0 dropped
# packets through, 0 accepted packets lost, the two rules' counters equal
# what the probe sent (no counter lost), every acknowledged rule of the
# writer in the table once, one that failed at most once, the probe's
# rules in place; every death noticed and the helper restarted.
# The restart throttle (3 deaths within 10 s of a start) is avoided: a
# helper is killed only after it lived 10 s, so a full run takes ~11 s a
# kill or fault.
. tests/guest/ipt-lib.sh
KILLS=${SOAK_KILLS:-5}
FAULTS=${SOAK_FAULTS:-4}
TOOL=${SOAK_TOOL:-build/tests/soak-tool}
EBPF_KO=build/kmod-faults/$KVER/ebpfilter.ko
O=$IPT_OUT/soak-kill
mkdir -p "$O"
POINTS=(commit commit-switched commit-live reply restore)

dmesg_mark
use_ebpfilter
$IPT -w -A OUTPUT -o lo -p udp --dport 9999 -j DROP &&
	$IPT -w -A OUTPUT -o lo -p udp --dport 9998 -j ACCEPT || fail "probe rules"
rm -f "$O/stop"
"$TOOL" probe "$O/stop" >"$O/probe" 2>"$O/probe.err" &
probe_pid=$!

# the writer: appends INPUT rules one at a time until $O/stop
: >"$O/acked"; : >"$O/failed"
(
	k=0
	while [ ! -e "$O/stop" ]; do
		k=$((k + 1))
		r="-A INPUT -s 10.66.$((k / 250)).$((k % 250 + 1))/32 -j ACCEPT"
		# shellcheck disable=SC2086
		if $IPT -w $r 2>>"$O/writer.err"; then echo "$r" >>"$O/acked"
		else echo "$r" >>"$O/failed"; fi
		sleep 0.2
	done
) &
writer_pid=$!

deaths=0
# kill_now: kill -9 the helper and wait until its death is reported and a
# new one serves
kill_now() {
	local pid
	pid=$(helper_pids)
	[ -n "$pid" ] || { request_ok; pid=$(helper_pids); }
	[ -n "$pid" ] || fail "no helper to kill"
	kill -9 "$pid"
	wait_for 10 dmesg_has "helper (pid $pid) died" || fail "death of $pid not noticed"
	deaths=$((deaths + 1))
}
# a helper younger than 10 s counts as a quick death: wait
settle() { sleep "${SOAK_KILL_GAP:-10.5}"; }

# check_counters EVENT: the probe paused, the two rules' counters must
# equal what it sent; a difference is logged with the event before it
: >"$O/counter.events"
check_counters() {
	local a d ca cd la ld log
	touch "$O/stop.pause"
	wait_for 10 test -e "$O/stop.counts" || fail "probe does not pause"
	sleep 0.2
	read -r a d <"$O/stop.counts"
	$IPT -w -L OUTPUT -n -v -x >"$O/c.now"
	cd=$(awk '$3 == "DROP" && /dpt:9999/ { print $1 }' "$O/c.now")
	ca=$(awk '$3 == "ACCEPT" && /dpt:9998/ { print $1 }' "$O/c.now")
	echo "$1: sent $a/$d counted ACCEPT $ca DROP $cd" >>"$O/counter.events"
	# a check that lost what the one before had: the event's context into
	# the part's log (the guest's files are gone with it)
	la=$((a - ${ca:-0})) ld=$((d - ${cd:-0}))
	log=$(dmesg_since_mark)
	if [ "$la" != "$lost_a" ] || [ "$ld" != "$lost_d" ]; then
		echo "--- short at $1: lost ACCEPT $lost_a -> $la, DROP $lost_d -> $ld; the kernel log since the event before, the writer's last errors:"
		printf '%s\n' "$log" | sed -n "$((event_line + 1)),\$p" | tail -n 20
		tail -n 3 "$O/writer.err"
	fi
	lost_a=$la lost_d=$ld
	event_line=$(printf '%s\n' "$log" | wc -l)
	rm -f "$O/stop.pause"
}
lost_a=0 lost_d=0 event_line=0

t0=$(date +%s)
settle
check_counters "writer only"
for i in $(seq 1 "$KILLS"); do
	settle
	kill_now
	request_ok || wait_for 10 request_ok || fail "no helper after kill $i"
	check_counters "kill $i"
done
fired=0
for i in $(seq 1 "$FAULTS"); do
	p=${POINTS[$(((i - 1) % ${#POINTS[@]}))]}
	settle
	echo "$p" >/run/ebpfilter-fault
	# a new helper reads the fault file at its start
	kill_now
	if [ "$p" = restore ]; then
		request_ok	# the new helper dies adopting the state
	else
		# the writer's next commit meets the fault
		wait_for 15 dmesg_has "fault at $p" || true
	fi
	dmesg_has "test build: fault at $p" && fired=$((fired + 1))
	wait_for 15 request_ok || fail "no helper after fault $i ($p)"
	check_counters "fault $i ($p)"
done
t1=$(date +%s)
sleep 1
touch "$O/stop"
wait "$writer_pid"
wait "$probe_pid"
cat "$O/probe" "$O/probe.err" | head -n 20
cat "$O/counter.events"
# events after which the counters fell further behind what was sent
counter_events=$(sed 's/^.*: sent //' "$O/counter.events" | awk '{ split($1, s, "/"); la = s[1] - $4; ld = s[2] - $6
	if (la != pa || ld != pd) n++; pa = la; pd = ld } END { print n + 0 }')

read -r acc acc_lost drop drop_leaked < <(sed -E 's/probe: accept ([0-9]+) sent ([0-9]+) lost; drop ([0-9]+) sent ([0-9]+) leaked/\1 \2 \3 \4/' "$O/probe")
$IPT -w -S >"$O/final"
$IPT -w -L OUTPUT -n -v -x >"$O/counters"
cat "$O/counters"
cdrop=$(awk '$3 == "DROP" && /dpt:9999/ { print $1 }' "$O/counters")
cacc=$(awk '$3 == "ACCEPT" && /dpt:9998/ { print $1 }' "$O/counters")
# each acknowledged rule once in the final save, each failed one at most
# once: one awk over the three files (a grep per rule was two execs per
# rule, ~2,000 rules at the full scale: minutes under TCG)
lost_rules=$(awk 'FILENAME == ARGV[1] { n[$0]++; next }
	FILENAME == ARGV[2] { if (n[$0] != 1) { print "acknowledged rule not once: " $0 >"/dev/stderr"; bad++ }; next }
	n[$0] > 1 { print "failed rule twice: " $0 >"/dev/stderr"; bad++ }
	END { print bad + 0 }' "$O/final" "$O/acked" "$O/failed")
grep -qxF -- "-A OUTPUT -o lo -p udp -m udp --dport 9999 -j DROP" "$O/final" || lost_rules=$((lost_rules + 1))
restarts=$(dmesg_since_mark | grep -c 'helper restarted')
throttled=$(dmesg_since_mark | grep -c 'restarts throttled')
head -n 5 "$O/writer.err"

result=PASS
[ "${drop_leaked:-x}" = 0 ] && [ "${acc_lost:-x}" = 0 ] && [ "$lost_rules" = 0 ] &&
	[ "$cdrop" = "$drop" ] && [ "$cacc" = "$acc" ] && [ "$fired" = "$FAULTS" ] &&
	[ "$throttled" = 0 ] || result=FAIL
counts="$KILLS kills + $FAULTS faults ($fired fired) in $((t1 - t0)) s; $deaths deaths, $restarts restarts, $throttled throttled; probe: $acc accepted sent ($acc_lost lost), $drop dropped sent ($drop_leaked through); counters DROP $cdrop/$drop ACCEPT $cacc/$acc, $counter_events of $(wc -l <"$O/counter.events") per-event checks short; writer $(wc -l <"$O/acked") acked, $(wc -l <"$O/failed") failed, $lost_rules rules lost or doubled"
echo "SOAK-RESULT kill-faults $result $counts"
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
[ $result = PASS ] || fail "kill-faults: $counts"
