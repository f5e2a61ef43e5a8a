#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part channel: a kernel-side fault in the channel, the helper
# stopping to read (SIGSTOP), SOAK_CHANNEL_ROUNDS times with
# request_timeout_ms=SOAK_TIMEOUT_MS: SOAK_CALLERS concurrent callers
# (revision queries, iptables -S, iptables -A) each get an answer within
# the bound: the request in flight gets EIO after the timeout (the module
# kills the helper), the callers queued behind it are served by the
# restarted helper, so the bound is 2 timeouts + 4 s (the restart, an
# iptables process's own requests and start under TCG).  No task hangs
# (hung_task_timeout_secs lowered to catch one), the next request is
# served by a new helper and the committed rules are unchanged.  Every
# other round the helper is continued (SIGCONT) before the timeout: then
# every caller is served.
. tests/guest/ipt-lib.sh
ROUNDS=${SOAK_CHANNEL_ROUNDS:-4}
TMO=${SOAK_TIMEOUT_MS:-2000}
C=${SOAK_CALLERS:-8}
TOOL=${SOAK_TOOL:-build/tests/soak-tool}
O=$IPT_OUT/soak-channel
mkdir -p "$O"
[ -w /proc/sys/kernel/hung_task_timeout_secs ] &&
	echo $(((TMO / 1000) * 3 + 5)) >/proc/sys/kernel/hung_task_timeout_secs

dmesg_mark
EBPF_MODPARAMS="request_timeout_ms=$TMO" use_ebpfilter
$IPT -w -A INPUT -p tcp --dport 22 -j ACCEPT && $IPT -w -t nat -A OUTPUT -p tcp --dport 81 -j REDIRECT --to-ports 80 ||
	fail "rules"
h0=$("$TOOL" hash filter); n0=$("$TOOL" hash nat)
bound=$((2 * TMO + 4000))
late=0; wrong=0; served=0; errored=0; rounds_ok=0
for r in $(seq 1 "$ROUNDS"); do
	sleep 10.5	# no quick deaths: the throttle is another test
	pid=$(helper_pids)
	kill -STOP "$pid"
	rm -f "$O"/c.*
	for c in $(seq 1 "$C"); do
		(
			a=$(date +%s%N)
			case $((c % 3)) in
			0) out=$("$SOCKOPT_REQ" served 2>&1) ;;
			1) out=$($IPT -S INPUT 2>&1 >/dev/null && echo ok || echo err) ;;
			*) out=$($IPT -w -A INPUT -s 10.55.$r.$c -j ACCEPT 2>&1 && echo ok || echo err) ;;
			esac
			echo "$((($(date +%s%N) - a) / 1000000)) $(echo "$out" | tail -n1)" >"$O/c.$c"
		) &
	done
	cont=no
	if [ $((r % 2)) = 0 ]; then
		sleep "$(echo "scale=1; $TMO / 4000" | bc 2>/dev/null || echo 0.5)"
		kill -CONT "$pid"; cont=yes
	fi
	wait
	for c in $(seq 1 "$C"); do
		read -r ms out <"$O/c.$c"
		[ "$ms" -le $bound ] || late=$((late + 1))
		case $out in ok*) served=$((served + 1)) ;; *) errored=$((errored + 1)) ;; esac
		if [ $cont = yes ]; then
			case $out in ok*) ;; *) wrong=$((wrong + 1)); echo "round $r caller $c: $ms ms '$out' (continued helper)" ;; esac
		fi
	done
	echo "round $r (SIGCONT: $cont): $(cat "$O"/c.* | tr '\n' ';')"
	wait_for 10 request_ok || fail "round $r: no recovery"
	[ "$("$TOOL" hash nat)" = "$n0" ] || fail "round $r: nat changed"
	$IPT -w -S INPUT | grep -q -- '--dport 22 -j ACCEPT' || fail "round $r: rule lost"
	rounds_ok=$((rounds_ok + 1))
done
hung=$(dmesg_since_mark | grep -c 'blocked for more than')
kills=$(dmesg_since_mark | grep -c 'did not answer within')
modprobe -r ebpfilter || fail rmmod
result=PASS
[ "$late" = 0 ] && [ "$wrong" = 0 ] && [ "$hung" = 0 ] && [ "$rounds_ok" = "$ROUNDS" ] || result=FAIL
counts="$ROUNDS rounds x $C callers, request_timeout_ms=$TMO: $errored errors, $served served, $late over ${bound} ms, $wrong failed although continued, $hung hung tasks, $kills helpers killed on timeout, $rounds_ok recoveries"
echo "SOAK-RESULT channel $result $counts"
[ $result = PASS ] || fail "channel: $counts"
