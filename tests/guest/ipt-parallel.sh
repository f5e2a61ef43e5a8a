#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Concurrency of the control ABI: 20 iptables-legacy writers at once
# WITHOUT the xtables lock (each its own XTABLES_LOCKFILE: with -w or a
# shared lock file the module would only ever see one caller at a time),
# while readers list the chain in a loop.  Writers whose commit raced
# another get EAGAIN (ip_tables' num_counters check) and retry; readers'
# GET_INFO/GET_ENTRIES pairs that straddle a commit get EAGAIN, which
# libiptc's TC_INIT retries (counted with strace).  Checked:
#   - every writer's change is committed (EAGAIN retried; EINVAL only from
#     the ADD_COUNTERS after its committed SET_REPLACE, as with ip_tables:
#     ipt_racing in ipt-lib.sh; no other error);
#   - at least one EAGAIN of each kind happened (else nothing raced and
#     the test proved nothing: another round is run, up to 4);
#   - the final chain is one serial order of the writes: each rule once;
#     every listing a reader took is a consistent snapshot of that order
#     (appends: a prefix of the final order; deletes: a subsequence of it).
# run-all-cost: 130
. tests/guest/ipt-lib.sh
N=20
W=$IPT_OUT/parallel
mkdir -p "$W"
command -v strace >/dev/null || fail "strace is not installed"

rule() { echo "-A INPUT -s 10.9.0.$1/32 -p tcp -m tcp --dport $((1000 + $1)) -j ACCEPT"; }

# readers_start: 3 readers list INPUT under strace until $W/stop exists;
# each listing goes to its own file $W/snap.R.K
readers_start() {
	rm -f "$W/stop" "$W"/snap.* "$W"/strace.*
	readers=()
	for r in 1 2 3; do
		(
			k=0
			while [ ! -e "$W/stop" ]; do
				k=$((k + 1))
				XTABLES_LOCKFILE=/tmp/xtables.r$r.lock \
					strace -qq -Z -e trace=getsockopt -o "$W/strace.$r.$k" \
					$IPT -S INPUT >"$W/snap.$r.$k" 2>&1 ||
					echo "reader $r listing $k failed: $(cat "$W/snap.$r.$k")" >>"$W/reader.errors"
			done
		) &
		readers+=($!)
	done
}
readers_stop() {
	touch "$W/stop"
	wait "${readers[@]}"
}

# writers OP: N writers, writer i applies OP (-A or -D) to rule i; all must
# succeed
writers() {
	local i pids=() rc=0
	rm -f "$W"/w.*
	for i in $(seq 1 $N); do
		# shellcheck disable=SC2046 # the rule's words
		ipt_racing w$i "$W/w.$i" $(rule $i | sed "s/^-A/$1/") &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	[ $rc = 0 ] || fail "a writer ($1) failed: $(grep -h '^err' "$W"/w.* | head -n 3)"
	cat "$W"/w.* >>"$W/attempts.$1"
}

# snapshots_consistent KIND: every reader's listing, rules only, is a
# prefix (KIND prefix) or a subsequence (KIND subseq) of $W/final.order
snapshots_consistent() {
	local f
	for f in "$W"/snap.*; do
		grep -- '^-A INPUT' "$f" >"$f.rules"
		awk -v kind="$1" 'NR == FNR { order[NR] = $0; n = NR; next }
			{ while (j < n && order[j + 1] != $0) { if (kind == "prefix") bad = 1; j++ }
			  if (j >= n) bad = 1; j++ }
			END { exit bad }' "$W/final.order" "$f.rules" ||
			fail "listing $f is no $1 of the serial order: $(tr '\n' '|' <"$f.rules")"
	done
}

# race BACKEND: rounds of racing appends and deletes until both kinds of
# EAGAIN were seen (at most 4)
race() {
	local round i n ea ed ga gd nsnap
	ipt_reset || fail "reset"
	for round in 1 2 3 4; do
		rm -f "$W"/attempts.* "$W/reader.errors"
		readers_start
		writers -A
		readers_stop
		[ ! -s "$W/reader.errors" ] || fail "$(head -n 3 "$W/reader.errors")"
		$IPT -S INPUT | grep -- '^-A INPUT' >"$W/final.order"
		for i in $(seq 1 $N); do
			n=$(grep -cxF -- "$(rule $i)" "$W/final.order")
			[ "$n" = 1 ] || fail "rule $i is in the table $n times after the appends"
		done
		n=$(wc -l <"$W/final.order")
		[ "$n" = $N ] || fail "$n rules instead of $N: $(cat "$W/final.order")"
		snapshots_consistent prefix
		ea=$(grep -c '^eagain' "$W/attempts.-A")
		ga=$(cat "$W"/strace.* | grep -c 'getsockopt.*= -1 EAGAIN')
		nsnap=$(ls "$W"/snap.*.rules | wc -l)

		readers_start
		writers -D
		readers_stop
		[ ! -s "$W/reader.errors" ] || fail "$(head -n 3 "$W/reader.errors")"
		n=$($IPT -S INPUT | grep -c -- '^-A INPUT')
		[ "$n" = 0 ] || fail "$n rules left after the parallel deletes"
		snapshots_consistent subseq
		ed=$(grep -c '^eagain' "$W/attempts.-D")
		gd=$(cat "$W"/strace.* | grep -c 'getsockopt.*= -1 EAGAIN')
		note "$1 round $round: SET_REPLACE EAGAIN retried: $ea appends, $ed deletes;" \
			"ADD_COUNTERS EINVAL after a commit: $(cat "$W"/attempts.* | grep -c '^einval');" \
			"GET_ENTRIES EAGAIN (libiptc retried): $ga, $gd; $nsnap + $(ls "$W"/snap.*.rules | wc -l) listings consistent"
		[ $((ea + ed)) -gt 0 ] && [ $((ga + gd)) -gt 0 ] && break
		[ $round = 4 ] && fail "$1: 4 rounds without both kinds of EAGAIN: the writers did not race"
	done
}

# The same race under ip_tables first, in this guest: its outcomes (EAGAIN
# retried, EINVAL from ADD_COUNTERS, one serial order) are the reference
# the module's must match.
use_ip_tables
race ip_tables
leave_ip_tables
use_ebpfilter
race ebpfilter
modprobe -r ebpfilter || fail "cannot unload ebpfilter"
echo "PASS ipt-parallel: $N racing appends and $N racing deletes without the lock, EAGAIN retried, one serial order"
