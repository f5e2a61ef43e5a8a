#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part writers: SOAK_WRITERS iptables-legacy -w writers for
# SOAK_WRITE_SECONDS, each on a chain of its own (append a rule, every
# third change delete its oldest), plus SOAK_READERS readers
# (iptables-save in a loop).  Checked: every writer's chain in the final
# save equals the serial replay of its acknowledged changes (0 lost, 0
# doubled), every command exited 0 (errors: none but EAGAIN, which
# iptables retries itself), no request timed out in the module, the
# slowest command is reported; the helper is alive and the same one.
. tests/guest/ipt-lib.sh
W=${SOAK_WRITERS:-8}
D=${SOAK_WRITE_SECONDS:-60}
R=${SOAK_READERS:-2}
O=$IPT_OUT/soak-writers
mkdir -p "$O"
rm -f "$O"/*

dmesg_mark
use_ebpfilter
pid0=$(helper_pids)
for i in $(seq 1 "$W"); do $IPT -w -N "W$i" || fail "-N W$i"; done
end=$(($(date +%s) + D))
now_ms() { echo $(($(date +%s%N) / 1000000)); }

writer() {
	local i=$1 k=0 ops=0 t a b rc out
	local -a live=()
	while [ "$(date +%s)" -lt $end ]; do
		k=$((k + 1))
		if [ $((k % 3)) = 0 ] && [ ${#live[@]} -gt 0 ]; then
			args="-D W$i ${live[0]}"
		else
			args="-A W$i -s 10.$i.$((k / 250)).$((k % 250 + 1))/32 -j ACCEPT"
		fi
		a=$(now_ms)
		# shellcheck disable=SC2086
		out=$($IPT -w $args 2>&1); rc=$?
		b=$(now_ms)
		echo "$((b - a))" >>"$O/times.$i"
		if [ $rc = 0 ]; then
			case $args in
			-D*) live=("${live[@]:1}") ;;
			*) live+=("-s 10.$i.$((k / 250)).$((k % 250 + 1))/32 -j ACCEPT") ;;
			esac
			ops=$((ops + 1))
		else
			echo "writer $i: $args: $out" >>"$O/errors"
		fi
	done
	: >"$O/expect.$i"
	for t in "${live[@]}"; do echo "-A W$i $t" >>"$O/expect.$i"; done
	echo "$ops" >"$O/ops.$i"
}
reader() {
	local n=0 a b
	while [ "$(date +%s)" -lt $end ]; do
		a=$(now_ms)
		$IPT-save >/dev/null 2>>"$O/errors" || echo "reader $1 failed" >>"$O/errors"
		b=$(now_ms)
		echo "$((b - a))" >>"$O/rtimes.$1"
		n=$((n + 1))
	done
	echo "$n" >"$O/reads.$1"
}
t0=$(date +%s)
pids=()
for i in $(seq 1 "$W"); do writer "$i" & pids+=($!); done
for i in $(seq 1 "$R"); do reader "$i" & pids+=($!); done
wait "${pids[@]}"
t1=$(date +%s)

lost=0
for i in $(seq 1 "$W"); do
	$IPT -w -S "W$i" | grep -- "^-A W$i " >"$O/got.$i"
	if ! cmp -s "$O/expect.$i" "$O/got.$i"; then
		echo "chain W$i differs from the serial replay:"
		diff "$O/expect.$i" "$O/got.$i" | head -n 5
		lost=$((lost + $(diff "$O/expect.$i" "$O/got.$i" | grep -c '^[<>]')))
	fi
done
ops=$(cat "$O"/ops.* | awk '{ s += $1 } END { print s + 0 }')
reads=$(cat "$O"/reads.* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
maxw=$(cat "$O"/times.* | sort -n | tail -n1)
maxr=$(cat "$O"/rtimes.* 2>/dev/null | sort -n | tail -n1)
errors=$(cat "$O/errors" 2>/dev/null | grep -c . || :)
timeouts=$(dmesg_since_mark | grep -c 'did not answer within')
same=yes
[ "$(helper_pids)" = "$pid0" ] || same="no ($pid0 -> $(helper_pids))"
head -n 5 "$O/errors" 2>/dev/null
result=PASS
[ "$lost" = 0 ] && [ "$errors" = 0 ] && [ "$timeouts" = 0 ] && [ "$same" = yes ] &&
	[ "$ops" -gt 0 ] || result=FAIL
counts="$W writers (-w) + $R readers for $((t1 - t0)) s: $ops changes acknowledged, $reads saves; $lost rules lost or extra against the serial replay; $errors errors; $timeouts module timeouts; slowest change $maxw ms, slowest save $maxr ms (lock waits included); same helper: $same"
echo "SOAK-RESULT writers $result $counts"
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
[ $result = PASS ] || fail "writers: $counts"
