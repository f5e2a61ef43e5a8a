#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Maps kept from one commit to the next (umh/load/map_keep.c): a commit
# reuses a set or classification map its code generation repeats byte for
# byte, and must never reuse one it does not.  A source-address run in
# INPUT and a destination-address run in FORWARD (each compiled to a hash
# map), then: only FORWARD changed (INPUT's maps must be the same objects,
# FORWARD's new), only INPUT's addresses changed (same sizes: INPUT's maps
# rebuilt, the verdicts follow), a rule's target changed inside a run, a
# rule inserted at the top (every rule's index moves: nothing reused); the
# verdicts of probes through both hooks are checked after each change, and
# the counters of the rules that matched.
. tests/verdict/lib.sh
IPT=iptables-legacy
BPFTOOL=${BPFTOOL:-/usr/sbin/bpftool}
verdict_tools
trap topo_teardown EXIT
topo_setup || fail "topology"
topo_servers "$VPROBE"
use_ebpfilter
D=$(mktemp -d)

# The ids of the maps of compiled runs (set and classification maps).
# Only the kmod mechanism lets go of the replaced programs at the switch;
# netfilter and tc keep them in the idle generation's slots until the next
# commit, and their maps with them: there the ids say nothing of reuse,
# and only the verdicts are checked.
ids=true
[ "$(ebpf_mech)" = kmod ] || { ids=false; note "mechanism $(ebpf_mech): verdicts only"; }
run_maps() {
	$ids || return 0
	"$BPFTOOL" map show | sed -n 's/^\([0-9]*\): .* name \(ebpf_set\|ebpf_cls\) .*/\1/p' | sort -n | tr '\n' ' '
}
expect() {	# PROBE-NAME NETNS PROTO SRC DST DPORT WANT
	local got
	got=$(vprobe_once "$D" "$1" "$2" "$3" "$4" "$5" "$6")
	[ "$got" = "$7" ] || fail "$STEP: $1 ($4 -> $5:$6): $got, not $7"
}
# INPUT: sources 10.0.9.1-30 and IN_ADDR dropped; FORWARD: destinations
# 10.0.8.1-30 and FW_ADDR rejected, then FW_EXTRA rules
rules() {	# IN_ADDR IN_TARGET FW_ADDR FW_EXTRA [TOP]
	local i
	echo "*filter"
	printf ':INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n'
	[ -z "${5:-}" ] || echo "-A INPUT -s 10.0.7.7/32 -p tcp -j DROP"
	for i in $(seq 1 15); do echo "-A INPUT -s 10.0.9.$i/32 -p tcp -j DROP"; done
	echo "-A INPUT -s $1/32 -p tcp -j $2"
	for i in $(seq 16 30); do echo "-A INPUT -s 10.0.9.$i/32 -p tcp -j DROP"; done
	for i in $(seq 1 15); do echo "-A FORWARD -d 10.0.8.$i/32 -p tcp -j DROP"; done
	echo "-A FORWARD -d $3/32 -p tcp -j DROP"
	for i in $(seq 16 30); do echo "-A FORWARD -d 10.0.8.$i/32 -p tcp -j DROP"; done
	for i in $(seq 1 "$4"); do echo "-A FORWARD -s 10.0.6.$i/32 -p udp -j DROP"; done
	echo "COMMIT"
}
load() {	# STEP, then rules()' arguments
	STEP=$1
	shift
	rules "$@" >"$D/rules"
	$IPT-restore <"$D/rules" || fail "$STEP: restore"
}
# the four probes' results: 10.0.1.130 and 10.0.1.2 in, to 10.0.3.77 and
# 10.0.3.2 through
verdicts() {	# IN130 IN2 FW77 FW2
	expect in-s130 c tcp 10.0.1.130 10.0.1.1 443 "$1"
	expect in-s2 c tcp 10.0.1.2 10.0.1.1 80 "$2"
	expect fw-d77 a tcp 10.0.2.2 10.0.3.77 443 "$3"
	expect fw-d2 a tcp 10.0.2.2 10.0.3.2 80 "$4"
}
# the rule of CHAIN with ADDR (the one a probe met) counted it
counted() {	# CHAIN ADDR
	local c
	c=$($IPT -L "$1" -v -x -n | awk -v w="$2" 'index($0, w) { print $1; exit }')
	[ "${c:-0}" -ge 1 ] || fail "$STEP: the rule that dropped $2 counted '$c'"
}

load "first" 10.0.1.130 DROP 10.0.3.77 3
verdicts timeout ok timeout ok
m1=$(run_maps)
! $ids || [ -n "$m1" ] || fail "no set or classification map: the rules were not compiled as runs"

# only FORWARD changes (one more rule at its end): INPUT's run maps stay.
# FORWARD's extra udp rules are a group of 3, then 4, keys: a map each
# time (a group of at most CLS_INLINE_MAX = 2 keys is compared inline,
# no map, and FORWARD's other map would then be reused as it is)
load "FORWARD only" 10.0.1.130 DROP 10.0.3.77 4
m2=$(run_maps)
if $ids; then
	kept=0
	for m in $m1; do case " $m2 " in *" $m "*) kept=$((kept + 1)) ;; esac; done
	[ "$kept" -ge 1 ] || fail "$STEP: no map reused (before: $m1; after: $m2)"
	[ "$m1" != "$m2" ] || fail "$STEP: FORWARD's maps were not rebuilt ($m2)"
	note "FORWARD only: $kept of the maps $m1 reused, now $m2"
fi
verdicts timeout ok timeout ok

# only INPUT's addresses change (same count, same sizes): its run is
# another map, and 10.0.1.2 is dropped instead of 10.0.1.130
load "INPUT only" 10.0.1.2 DROP 10.0.3.77 4
m3=$(run_maps)
! $ids || [ "$m3" != "$m2" ] || fail "$STEP: INPUT's changed run kept its map ($m3)"
verdicts ok timeout timeout ok
counted INPUT 10.0.1.2

# the target of the rule in the middle of INPUT's run changes
load "target" 10.0.1.2 ACCEPT 10.0.3.77 4
verdicts ok ok timeout ok

# FORWARD's address changes back, INPUT's target back to DROP
load "both" 10.0.1.2 DROP 10.0.3.2 4
verdicts ok timeout ok timeout
m4=$(run_maps)

# a rule at the top: every index moves, so no map's values are the same
load "top" 10.0.1.2 DROP 10.0.3.2 4 top
m5=$(run_maps)
for m in $m5; do
	case " $m4 " in *" $m "*) fail "$STEP: map $m reused although every rule index moved" ;; esac
done
verdicts ok timeout ok timeout
counted INPUT 10.0.1.2
counted FORWARD 10.0.3.2

$IPT -F || fail "flush"
modprobe -r ebpfilter || fail "rmmod"
echo "PASS enforce-reuse: maps reused only where a commit repeats them; verdicts after every change"
