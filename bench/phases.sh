#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/phases.sh: where one `iptables-legacy -w -A` goes (issue 20; see
# bench/calls.md, "Where a call's time goes").  Guest side only, after
# `make module-for KVER=...` and tests/tools/prepare-modindex (run-all and
# bench/run do both):
#   tests/vm/run-guest --kver KVER --icount --env EBPF_KO=... \
#       [--env PHASES_NS="0 1000 10000"] [--env PHASES_CALLS=20] -- bash bench/phases.sh
# For each N (the linear set of bench/gen-rules): ebpfilter loaded with
# phase_timing=1, PHASES_CALLS adds timed (busy guest time: instructions
# under -icount), the helper's phase totals (dmesg "phase us:") before and
# after them, the helper's page faults per call (/proc/PID/stat: each a
# fault's kernel work and a page zeroed, counted in the phases' time), and
# one call under strace -T (time inside each sockopt); then the same adds
# on ip_tables.
set -u
. tests/guest/ipt-lib.sh
[ "${RUN_GUEST:-}" = 1 ] || fail "bench/phases.sh runs inside a QEMU guest only"
NS=${PHASES_NS:-0 1000 10000}
CALLS=${PHASES_CALLS:-20}
W=$(mktemp -d)

busy_ns() {	# the guest clock less the vCPU's idle time (10 ms steps)
	awk -v t="$(date +%s%N)" '{ printf "%d", t - $2 * 1e9 }' /proc/uptime
}
add() { iptables-legacy -w -A FORWARD -s 198.18.$(($1 / 256)).$(($1 % 256)) -p tcp --dport $((1000 + $1)) -j DROP; }
# the helper's running totals, after a pause that gives it a fresh log
# window (lib/log.c: 10 lines per 5 s) and one more call
totals() {	# I
	sleep 5.3
	add $1 || fail "add"
	dmesg | grep 'phase us:' | tail -1 | sed 's/.*phase us://'
}
# the helper's minor page faults so far (stat's field 10; its comm has
# no space)
helper_minflt() {
	local pid s
	pid=$(helper_pids)
	read -r -a s <"/proc/$pid/stat" || fail "no helper stat"
	echo "${s[9]}"
}

for n in $NS; do
	bench/gen-rules ipt linear $n >$W/l.ipt
	for b in ebpf ipt; do
		case $b in
		ebpf) EBPF_MODPARAMS=phase_timing=1 use_ebpfilter ;;
		ipt) use_ip_tables ;;
		esac
		iptables-legacy-restore <$W/l.ipt || fail "restore"
		add 60000 || fail "add"	# warm
		[ $b = ebpf ] && a=$(totals 60001) && f0=$(helper_minflt)
		t0=$(busy_ns)
		for ((i = 0; i < CALLS; i++)); do add $i || fail "add $i"; done
		t1=$(busy_ns)
		echo "phases $b N=$n: $CALLS adds, busy us per call $(((t1 - t0) / 1000 / CALLS))"
		[ $b = ebpf ] &&
			echo "phases ebpf N=$n helper page faults per call: $((($(helper_minflt) - f0) / CALLS))"
		if [ $b = ebpf ]; then
			z=$(totals 60002)
			# per call: the CALLS adds and the one totals() made
			echo "phases ebpf N=$n helper us per call:$(awk -v a="$a" -v z="$z" -v k=$((CALLS + 1)) 'BEGIN {
				na = split(a, x, " "); split(z, y, " ");
				for (i = 1; i <= na; i++) { split(x[i], p, "="); split(y[i], q, "=");
					printf " %s=%d", p[1], (q[2] - p[2]) / k; s += (q[2] - p[2]) / k }
				printf " total=%d", s }')"
		fi
		strace -f -T -e trace=getsockopt,setsockopt -o $W/st iptables-legacy -w -A FORWARD -s 198.18.255.1 -j DROP || fail "strace add"
		echo "phases $b N=$n sockopts (strace -T, s):" $(sed -n 's/.*\(IPT_SO_[A-Z_]*\).*<\([0-9.]*\)>$/\1=\2/p' $W/st)
		iptables-legacy -F
		case $b in
		ebpf) modprobe -r ebpfilter || fail "rmmod" ;;
		ipt) leave_ip_tables ;;
		esac
	done
done
echo "phases: done"
