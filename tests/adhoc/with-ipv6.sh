# SPDX-License-Identifier: GPL-2.0
# Run a guest test (tests/guest/*.sh) with ebpfilter loaded ipv6=1: every
# `modprobe ebpfilter` of the test reads the option from modprobe.d.  Then
# check the module did serve IPv6.  In a guest only:
#   tests/vm/run-guest --kver KVER -- bash tests/adhoc/with-ipv6.sh tests/guest/enforce-basic.sh
set -u
echo "options ebpfilter ipv6=1" >/etc/modprobe.d/ebpfilter-ipv6.conf
bash "$@" || exit $?
dmesg | grep -q 'ebpfilter: loaded.*IPv6 served' || {
	echo "FAIL: ebpfilter was not loaded with ipv6=1" >&2
	exit 1
}
echo "PASS (ipv6=1): $*"
