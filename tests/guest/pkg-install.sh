#!/bin/bash
# The Debian package in a guest: dpkg -i build/deb/ebpfilter-dkms_*.deb
# builds ebpfilter.ko through DKMS for the running kernel, modprobe loads
# it, iptables-legacy works against it, and removing/purging the package
# removes the module from every kernel.  (Build the .deb first:
# packaging/build-deb; tests/host.d/deb does.)
#
# Only the running kernel is built: DKMS's postinst also builds for the
# newest kernel in /boot, which under TCG would double a run that is
# already minutes long (compile + depmod over 9p), so the other kernels'
# /boot/config-* are hidden in this throwaway overlay.  PKG_ALL_KERNELS=1
# builds for every kernel instead.
#
# Under TCG this takes 4-7 min (the DKMS compile alone ~3 min), more than
# tests/run-all's 600 s per guest test.
# run-all-timeout: 1800
# run-all-cost: 500
# run-all-after: deb (tests/host.d/deb builds the package it installs)
. tests/vm/lib.sh
require_guest
set -u
k=$(uname -r)
# Minutes of DKMS compile under TCG: `make check` installs the package on
# its core-tier kernel only (tests/host.d/dkms builds the package's DKMS
# tree for every kernel on the host); `make check-all` here on every kernel.
case ${EBPF_TIER:-full} in
full | core) ;;
*) skip "$EBPF_TIER tier: the package is installed in the core tier's guest" ;;
esac
# DKMS needs the compiler the kernel's headers call (7.3's gcc-14 is not in
# Debian 12's userland)
skip_unless_kbuild_cc
deb=$(ls build/deb/ebpfilter-dkms_*.deb 2>/dev/null | sort -V | tail -n1)
[ -n "$deb" ] || fail "no build/deb/ebpfilter-dkms_*.deb (run packaging/build-deb)"
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
# dkms uses bash process substitution (<(...)), which needs /dev/fd; the
# guest's devtmpfs has no /dev/fd links (a real system's udev makes them).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done
secs() { echo "$(($(date +%s) - t0)) s"; }

if [ "${PKG_ALL_KERNELS:-0}" != 1 ]; then
	for c in /boot/config-*; do
		[ "$c" = "/boot/config-$k" ] || rm -f "$c"
	done
fi
# depmod (run by dpkg -i and again by --purge) reads every module of the
# kernel: 4,230 compressed modules on 6.12, 76 s each time under TCG.  The
# drivers/ and sound/ trees (3,466 of them) hold nothing ebpfilter or this
# test loads; empty mounts over them in this throwaway guest leave depmod
# the rest (net/, lib/, fs/, ...).  PKG_ALL_MODULES=1 keeps them.
if [ "${PKG_ALL_MODULES:-0}" != 1 ]; then
	for d in drivers sound; do
		mount -t tmpfs -o ro,size=4k none "/lib/modules/$k/kernel/$d" ||
			fail "cannot hide /lib/modules/$k/kernel/$d"
	done
fi
# A guest is not a buildd: make sure dkms sees the running kernel's headers.
[ -e "/lib/modules/$k/build/Module.symvers" ] || skip "no headers for $k"

# man-db's trigger rebuilds the whole manual index: minutes of emulated
# CPU in one system call stream under TCG (a soft-lockup warning, which
# the strict harness fails on).  Debian skips it without this file.
rm -f /var/lib/man-db/auto-update
note "dpkg -i $(basename "$deb")"
dpkg -i "$deb" || fail "dpkg -i failed"
note "installed after $(secs)"
dkms status ebpfilter
dkms status ebpfilter | grep -q "ebpfilter/.*, $k, .*: installed" ||
	fail "dkms did not install ebpfilter for $k"
ko=$(modinfo -n ebpfilter) || fail "modinfo cannot find ebpfilter"
echo "$ko"
case $ko in */updates/dkms/ebpfilter.ko*) ;; *) fail "ebpfilter resolves to $ko, not the DKMS module" ;; esac
assert_eq "$(cat VERSION)" "$(modinfo -F version ebpfilter)" "module version"
[ -f /etc/modprobe.d/ebpfilter.conf ] || fail "no /etc/modprobe.d/ebpfilter.conf"
[ -f /etc/modules-load.d/ebpfilter.conf ] || fail "no /etc/modules-load.d/ebpfilter.conf"
! grep -q '^[[:space:]]*ebpfilter' /etc/modules-load.d/ebpfilter.conf ||
	fail "boot loading must be opt-in"
[ -f /usr/share/man/man8/ebpfilter.8.gz ] || fail "no man page"

note "modprobe ebpfilter"
dmesg_mark
modprobe ebpfilter || { dmesg | tail -n 20; fail "modprobe ebpfilter"; }
lsmod | grep -E '^ebpfilter'
pgrep -a -x ebpfilter-umh || fail "no helper process"
dmesg_since_mark | grep ebpfilter

note "iptables-legacy"
iptables-legacy -A INPUT -p tcp --dport 8080 -j ACCEPT || fail "iptables -A"
iptables-legacy -A INPUT -p tcp --dport 9090 -j DROP || fail "iptables -A"
out=$(iptables-legacy -S) || fail "iptables -S"
echo "$out"
echo "$out" | grep -qx -- '-A INPUT -p tcp -m tcp --dport 8080 -j ACCEPT' || fail "rule 1 missing"
echo "$out" | grep -qx -- '-A INPUT -p tcp -m tcp --dport 9090 -j DROP' || fail "rule 2 missing"
iptables-legacy -F INPUT || fail "iptables -F"
! grep -qw ip_tables /proc/modules || fail "ip_tables got loaded"

note "modprobe -r ebpfilter"
modprobe -r ebpfilter || fail "modprobe -r"
! grep -qw ebpfilter /proc/modules || fail "still loaded"

note "dpkg --purge ebpfilter-dkms"
dpkg --purge ebpfilter-dkms || fail "dpkg --purge failed"
left=$(find /lib/modules/*/updates /var/lib/dkms -name 'ebpfilter*' 2>/dev/null)
[ -z "$left" ] || fail "left behind: $left"
! modinfo ebpfilter >/dev/null 2>&1 || fail "modinfo still finds ebpfilter"
[ ! -e "/usr/src/ebpfilter-$(cat VERSION)" ] || fail "/usr/src/ebpfilter-$(cat VERSION) left"
[ ! -e /etc/modprobe.d/ebpfilter.conf ] || fail "conffile left after purge"
note "PASS after $(secs)"
