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

# Save of the filter table with counters, timestamps stripped.
ipt_save_c() {
	iptables-legacy-save -c -t filter | ipt_normalize
}
