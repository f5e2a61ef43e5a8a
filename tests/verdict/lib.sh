# SPDX-License-Identifier: GPL-2.0
# Shared by tests/guest/verdict-*.sh (sourced, inside a QEMU guest only).
. tests/guest/ipt-lib.sh
. tests/verdict/topology.sh

VPROBE=${VPROBE:-build/tests/vprobe}

# vprobe_once DIR NAME NETNS PROTO SRC DST DPORT [SPORT]: one vprobe probe
# (ok, refused = RST or ICMP port unreachable, unreach = other ICMP error,
# timeout = nothing within 800 ms: below the 1 s SYN RTO, so a dropped
# connect is one SYN), its file in DIR; SPORT "40000+" (the default) is
# 40000 + a run number that grows over the whole test, so no probe reuses
# a conntrack tuple of an earlier one (the other backend's included).
VPROBE_RUN=0
vprobe_once() {
	local f=$1/probe.$2 r
	VPROBE_RUN=$((VPROBE_RUN + 1))
	echo "$2 $3 $4 $5 $6 $7 ${8:-40000+}" >"$f"
	r=$("$VPROBE" run "$f" $VPROBE_RUN 800)
	case $? in 0 | 3) ;; *) fail "vprobe failed: $r" ;; esac
	echo "${r#* }"
}
# The probe tool, built on the host (make -C tests tools; run-all does).
verdict_tools() {
	[ -x "$VPROBE" ] && [ ! tests/verdict/vprobe.c -nt "$VPROBE" ] ||
		fail "no up-to-date $VPROBE: build it on the host (make -C tests tools)"
}

# Does the kernel have netfilter BPF links (else ebpfilter uses tc)?
verdict_mech() {
	dmesg | sed -n 's/.*enforcement: \([a-z]*\) hooks.*/\1/p' | tail -n1
}

# Save with counters, timestamps stripped, of the filter table and of
# every other table the rule set FILE (if given) has a section for.
ipt_save_c() {
	local t
	for t in filter $(sed -n 's/^\*//p' "${1:-/dev/null}" | grep -vx filter); do
		$IPT-save -c -t "$t" || return 1
	done | ipt_normalize
}
