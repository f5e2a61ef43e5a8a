# SPDX-License-Identifier: GPL-2.0
# Shared by tests/guest/verdict-*.sh (sourced, inside a QEMU guest only).
. tests/guest/ipt-lib.sh
. tests/verdict/topology.sh

VPROBE=${VPROBE:-build/tests/vprobe}
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
		iptables-legacy-save -c -t "$t" || return 1
	done | ipt_normalize
}
