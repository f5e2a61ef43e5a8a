#!/bin/bash
# 8 concurrent requesters: right after load, and right after the helper
# was killed; there is only ever one helper, and every request is served.
# Then a storm: 4 writers (SET_REPLACE, without the xtables lock), 3
# readers (GET_INFO/GET_ENTRIES) and 3 revision queriers, looping, while
# the helper is killed twice (once inside a request, by strace; once
# anywhere): every request is served or fails with EIO (the helper died
# under it: at least one does; EAGAIN commits are retried), every kind is
# served again after the kills, one helper restart per death, and the
# final table is one serial order of the writes (each acknowledged append
# once, nothing else but an append that got EIO, at most once).
# run-all-cost: 180
. tests/guest/ipt-lib.sh
ebpf_install

burst() {
	local i pids=() rc=0
	for i in $(seq 1 8); do
		"$SOCKOPT_REQ" served > "/tmp/burst.$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	for i in $(seq 1 8); do
		[ "$(cat /tmp/burst.$i)" = "ok 0" ] || { echo "requester $i: $(cat /tmp/burst.$i)"; rc=1; }
	done
	return $rc
}

dmesg_mark
modprobe ebpfilter && burst || fail "burst after load"
[ "$(helper_count)" = 1 ] || fail "$(helper_count) helpers after burst"
pid1=$(helper_pids)

kill -9 "$pid1"
wait_for 5 dmesg_has "helper (pid $pid1) died" || fail "death not noticed"
burst || fail "burst after kill"
[ "$(helper_count)" = 1 ] || fail "$(helper_count) helpers after burst"
n=$(dmesg_since_mark | grep -c "helper restarted")
[ "$n" = 1 ] || fail "$n restarts for one death"

# ---- the storm
S=/tmp/storm
mkdir -p $S
echo 0 >$S/phase	# how many kills so far: each outcome is logged with it
: >$S/acked; : >$S/eio	# the appends acknowledged, and those that got EIO
# The helper now outlives the quick-death window, so neither kill below
# is throttled (a refused restart would be a different test: umd-throttle).
sleep 11
log() { echo "$(cat $S/phase) $1" >>"$2"; }
# held ID: while $S/hold exists, the writers and readers wait between
# requests (kill 1 is then inside a revision query: an EIO there is seen,
# while iptables-legacy retries a failed GET_INFO/GET_ENTRIES once by
# itself, so that an EIO under a writer's or reader's listing can vanish)
held() {
	[ -e $S/hold ] || return 0
	touch $S/held.$1
	while [ -e $S/hold ]; do sleep 0.1; done
	rm -f $S/held.$1
}
for w in 1 2 3 4; do
	(
		j=0
		while [ ! -e $S/stop ]; do
			held w$w
			j=$((j + 1))
			r="-A INPUT -s 10.8.$w.$j/32 -j ACCEPT"
			: >$S/att.w$w
			# shellcheck disable=SC2086 # the rule's words
			if ipt_racing w$w $S/att.w$w $r; then
				log ok $S/w$w; echo "$r" >>$S/acked
			elif grep -q 'Input/output error' $S/att.w$w; then
				log eio $S/w$w; echo "$r" >>$S/eio
			else
				log "bad $(tail -n1 $S/att.w$w)" $S/w$w
			fi
		done
	) &
done
for r in 1 2 3; do
	(
		k=0
		while [ ! -e $S/stop ]; do
			held r$r
			k=$((k + 1))
			if XTABLES_LOCKFILE=/tmp/xtables.sr$r.lock $IPT -S INPUT >$S/snap.$r.$k 2>&1; then
				log ok $S/r$r
			elif grep -q 'Input/output error' $S/snap.$r.$k; then
				log eio $S/r$r; rm $S/snap.$r.$k
			else
				log "bad $(head -n1 $S/snap.$r.$k)" $S/r$r
			fi
		done
	) &
	(
		while [ ! -e $S/stop ]; do
			a=$("$SOCKOPT_REQ" served)
			case $a in
			"ok 0") log ok $S/q$r ;;
			"err EIO 5") log eio $S/q$r ;;
			*) log "bad $a" $S/q$r ;;
			esac
		done
	) &
done
all_held() { [ "$(ls $S/held.* 2>/dev/null | wc -l)" = 7 ]; }
# served_in PHASE: every requester has had a request served in PHASE
served_in() {
	local f
	for f in $S/w? $S/r? $S/q?; do
		grep -q "^$1 ok" "$f" 2>/dev/null || return 1
	done
}
dmesg_mark
wait_for 120 served_in 0 || fail "the storm's requesters were not all served before the kills"
command -v strace >/dev/null || fail "strace is not installed"
for kill in 1 2; do
	old=$(helper_pids)
	[ "$(helper_count)" = 1 ] || fail "$(helper_count) helpers before kill $kill"
	if [ $kill = 1 ]; then
		# inside a request: strace kills the helper as it writes its
		# third reply after attaching, while only the revision queriers
		# run, so that request surely gets EIO, and it is seen
		touch $S/hold
		wait_for 60 all_held || fail "writers and readers not held before kill 1"
		strace -qq -o /dev/null -p "$old" -e trace=writev \
			-e inject=writev:signal=KILL:when=3 &
		wait_for 60 bash -c "! kill -0 $old 2>/dev/null" || fail "strace did not kill the helper"
		wait $!
	else
		kill -9 "$old"	# wherever it is
	fi
	echo $kill >$S/phase
	rm -f $S/hold
	wait_for 60 served_in $kill || fail "requesters not all served after kill $kill"
	assert_new_helper "$old"
done
touch $S/stop
wait
bad=$(grep -h ' bad' $S/w? $S/r? $S/q?)
[ -z "$bad" ] || fail "requests failed otherwise than with EIO: $(echo "$bad" | head -n 3)"
grep -q ' eio' $S/w? $S/r? $S/q? || fail "no request got EIO: none was inside the helper when it was killed"
[ "$(helper_count)" = 1 ] || fail "$(helper_count) helpers after the storm"
n=$(dmesg_since_mark | grep -c "helper restarted")
[ "$n" = 2 ] || fail "$n helper restarts for 2 deaths"
# the final table: every acknowledged append once, in some order; an
# append that got EIO (helper killed around its SET_REPLACE or
# ADD_COUNTERS) at most once; nothing else
$IPT -S INPUT | grep -- '^-A INPUT' >$S/final
sort $S/final | uniq -d >$S/dups
[ ! -s $S/dups ] || fail "rules in the table twice: $(head -n 3 $S/dups)"
missing=$(sort $S/acked | comm -23 - <(sort $S/final))
[ -z "$missing" ] || fail "acknowledged appends missing: $(echo "$missing" | head -n 3)"
extra=$(sort $S/final | comm -23 - <(sort -u $S/acked $S/eio))
[ -z "$extra" ] || fail "rules nobody appended: $(echo "$extra" | head -n 3)"
# every listing a reader got is a prefix of that order (appends only)
for f in $S/snap.*; do
	grep -- '^-A INPUT' "$f" | cmp -s - <(head -n "$(grep -c -- '^-A INPUT' "$f")" $S/final) ||
		fail "listing $f is not a prefix of the final order"
done
note "storm: $(wc -l <$S/acked) acknowledged appends, $(wc -l <$S/eio) with EIO" \
	"($(grep -xF -f $S/eio $S/final | wc -l) of them applied);" \
	"$(cat $S/r? | grep -c ok) listings, $(cat $S/q? | grep -c ok) revision queries served;" \
	"$(cat $S/w? $S/r? $S/q? | grep -c eio) EIO; 2 kills, 2 restarts"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
