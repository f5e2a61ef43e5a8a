#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test with a real front-end: the commands of Debian's
# fail2ban action iptables-multiport (action.d/iptables-multiport.conf and
# the iptables.conf it includes, staged on the host by
# tests/tools/stage-fw-pkgs), rendered by fail2ban's own config reader and
# tag substitution (tests/fw/f2b-render.py: the command texts come from the
# package file, none is retyped here) and run with /bin/sh as fail2ban's
# server runs them, under the kernel's ip_tables, then under ebpfilter, in
# this guest.  The default blocktype is REJECT --reject-with
# icmp-port-unreachable, which ebpfilter refuses today: this test fails
# there, step by step, until the engine runs REJECT through the kernel's
# own code.
#
# The jail: name sshd, port=22,53, protocol=tcp,udp (the action's loop over
# protocols runs twice), 20 banned addresses: 10.0.1.2 first (unbanned
# again later), 18 others, 10.0.1.130 last (stays banned); namespace c holds
# both 10.0.1.2 and 10.0.1.130 (tests/verdict/topology.sh).  The sequence:
#   actionstart; probes (all connect)
#   actionban x20; actioncheck (-C); save; probes (both banned sources:
#     TCP 22 and UDP 53 rejected, TCP 80 (not a jail port) connects)
#   actionunban of the first 10 (10.0.1.2 among them); actioncheck; save;
#     probes (10.0.1.2 connects, 10.0.1.130 still rejected)
#   actionstop; save; probes (all connect)
# Every command's output and exit status, every save (no counters) and
# every probe result must be identical under both engines.  The ip_tables
# run must itself reject the banned sources as recorded below (TCP connect:
# ECONNREFUSED from the ICMP port unreachable, "refused"; UDP: "refused")
# and let the others through, else the reference is broken.
# Ends with "N passed, N failed" over the parts.
# run-all-cost: 90
. tests/guest/fw-lib.sh

fw_staged
verdict_tools
fw_legacy_alternatives

F2B_CMDS=$FW_OUT/f2b-cmds
ips="10.0.1.2 $(seq -f '10.0.9.%g' 1 18 | paste -sd' ') 10.0.1.130"
rm -rf "$F2B_CMDS"
PYTHONPATH=$FW_STAGE/usr/lib/python3/dist-packages python3 tests/fw/f2b-render.py \
	"$FW_STAGE/etc/fail2ban" iptables-multiport sshd "$F2B_CMDS" \
	port=22,53 protocol=tcp,udp -- $ips || fail "cannot render the fail2ban action"
[ "$(ls "$F2B_CMDS" | grep -c actionban)" = 20 ] || fail "rendered $(ls "$F2B_CMDS" | grep -c actionban) bans, not 20"
grep -q -- '-j REJECT --reject-with icmp-port-unreachable$' "$F2B_CMDS"/*-actionban-10.0.1.130.sh ||
	fail "the rendered ban is not the package's default REJECT: $(cat "$F2B_CMDS"/*-actionban-10.0.1.130.sh)"
note "rendered: $(ls "$F2B_CMDS" | wc -l) commands, e.g. $(cat "$F2B_CMDS"/*-actionban-10.0.1.130.sh)"

trap 'topo_teardown' EXIT
topo_setup || fail "topology"
topo_servers "$VPROBE"	# listeners on 22, 53, 80, ... in every namespace
fw_warmup

# probes LABEL: TCP 22 and UDP 53 from both sources, TCP 80 from the one
# that stays banned (80 is no jail port)
probes() {
	local p
	for p in "tcp2 tcp 10.0.1.2 22" "udp2 udp 10.0.1.2 53" "tcp130 tcp 10.0.1.130 22" \
		"udp130 udp 10.0.1.130 53" "tcp130-80 tcp 10.0.1.130 80"; do
		set -- $p
		echo "$1 $(fw_probe "$1" c "$2" "$3" 10.0.1.1 "$4")"
	done | sed "s/^/$1 /"
}

# run_cmds GLOB: each rendered command file matching GLOB, in order, with
# /bin/sh -c (fail2ban's executeCmd: subprocess with shell=True), its text,
# output and exit status
run_cmds() {
	local f out rc
	for f in "$F2B_CMDS"/$1; do
		echo "\$ $(basename "$f" .sh)"
		sed 's/^/> /' "$f"
		out=$(sh -c "$(cat "$f")" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		echo "[exit $rc]"
	done
}

# The rendered files, by phase (f2b-render.py numbers them in order:
# actionstart, 20 bans, actioncheck, 10 unbans, actioncheck, actionstop)
phase_files() {	# FIRST LAST: the NN-prefixes FIRST..LAST
	local i
	for i in $(seq "$1" "$2"); do printf '%02d-*.sh\n' "$i"; done
}
[ -e "$F2B_CMDS"/22-actioncheck.sh ] && [ -e "$F2B_CMDS"/33-actioncheck.sh ] &&
	[ -e "$F2B_CMDS"/34-actionstop.sh ] || fail "unexpected rendered sequence: $(ls "$F2B_CMDS" | paste -sd' ')"

run_phase() {	# FIRST LAST
	local g
	for g in $(phase_files "$1" "$2"); do run_cmds "$g"; done
}

run_f2b() {	# BACKEND
	local b=$1 o=$FW_OUT/f2b
	: >"$o.commands.$b"
	: >"$o.save.$b"
	: >"$o.verdicts.$b"
	run_phase 1 1 >>"$o.commands.$b"
	probes started >>"$o.verdicts.$b"
	run_phase 2 22 >>"$o.commands.$b"
	{ echo "# after 20 bans"; fw_save; } >>"$o.save.$b"
	probes banned >>"$o.verdicts.$b"
	run_phase 23 33 >>"$o.commands.$b"
	{ echo "# after 10 unbans"; fw_save; } >>"$o.save.$b"
	probes unbanned >>"$o.verdicts.$b"
	run_phase 34 34 >>"$o.commands.$b"
	{ echo "# after actionstop"; fw_save; } >>"$o.save.$b"
	probes stopped >>"$o.verdicts.$b"
	note "fail2ban on $b: $(grep -c '^\[exit 0\]' "$o.commands.$b") of $(grep -c '^\$ ' "$o.commands.$b") commands succeeded"
}

use_ip_tables
run_f2b ip_tables
o=$FW_OUT/f2b
# The reference: every command succeeds, the bans reject as fail2ban means.
[ "$(grep -c '^\[exit 0\]' "$o.commands.ip_tables")" = 34 ] ||
	{ cat "$o.commands.ip_tables"; fail "under ip_tables, not every fail2ban command succeeded"; }
want="started tcp2 ok
started udp2 ok
started tcp130 ok
started udp130 ok
started tcp130-80 ok
banned tcp2 refused
banned udp2 refused
banned tcp130 refused
banned udp130 refused
banned tcp130-80 ok
unbanned tcp2 ok
unbanned udp2 ok
unbanned tcp130 refused
unbanned udp130 refused
unbanned tcp130-80 ok
stopped tcp2 ok
stopped udp2 ok
stopped tcp130 ok
stopped udp130 ok
stopped tcp130-80 ok"
fw_expect "probe results" "$want" "$(cat "$o.verdicts.ip_tables")"
fw_second_run run_f2b

fw_compare "fw-fail2ban/commands (actionstart, 20 bans, actioncheck, 10 unbans, actioncheck, actionstop: outputs and exit statuses)" "$o.commands"
fw_compare "fw-fail2ban/saves (after bans, unbans, stop)" "$o.save"
fw_compare "fw-fail2ban/verdicts (banned: icmp-port-unreachable; unbanned: connect)" "$o.verdicts"
fw_finish
echo "$fw_passed passed, $fw_failed failed"
[ $fw_failed = 0 ]
