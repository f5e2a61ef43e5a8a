#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render a fail2ban action's commands with fail2ban's own code.

  f2b-render.py CONFDIR ACTION JAIL OUTDIR [NAME=VALUE...] -- IP...

CONFDIR is fail2ban's configuration (the staged etc/fail2ban), ACTION an
action.d file name without .conf (iptables-multiport); NAME=VALUE are the
action's init options as a jail would give them (port=..., protocol=...).
The action file is read with fail2ban.client.actionreader.ActionReader
(its [INCLUDES], [Definition], [Init], %(...)s interpolation), handed to a
fail2ban.server.action.CommandAction as the server does, and each
operation's command is produced by the server's own substitution
(CommandAction._getOperation for actionstart/actioncheck/actionstop,
replaceTag + replaceDynamicTags with the ticket's ip for actionban and
actionunban), for the family of the IPs (inet6 when they are IPv6
addresses, as fail2ban's ticket gives it: the action's [Init?family=inet6]
then applies, ip6tables and icmp6-port-unreachable; all IPs of one
rendering must be of one family).  Nothing is executed: one file per
command in OUTDIR, named NN-OPERATION[-IP].sh, in the order fail2ban runs
them: actionstart, then for each IP actionban, actioncheck (-C, what fail2ban
runs before repairing), then actionunban of the first half of the IPs,
actioncheck, actionstop.  The command texts therefore come from the package
file, never from this script.
"""
import os
import sys

from fail2ban.client.actionreader import ActionReader
from fail2ban.server.action import CommandAction


def main():
    confdir, action, jail, outdir = sys.argv[1:5]
    rest = sys.argv[5:]
    sep = rest.index("--")
    opts = dict(a.split("=", 1) for a in rest[:sep])
    ips = rest[sep + 1:]
    r = ActionReader(action, jail, opts, basedir=confdir)
    if not r.read():
        raise SystemExit("f2b-render: cannot read action.d/%s.conf in %s" % (action, confdir))
    r.getOptions({})
    stream = r.convert()
    act = CommandAction(None, r.getName())
    for s in stream:
        if s[0] == "multi-set":
            for k, v in s[4]:
                setattr(act, k, v)
        elif len(s) >= 6 and s[0] == "set" and s[2] == "action":
            setattr(act, s[4], s[5])
    fams = {"inet6" if ":" in ip else "inet4" for ip in ips}
    if len(fams) != 1:
        raise SystemExit("f2b-render: the IPs must be of one family: %r" % ips)
    fam = fams.pop()
    n = [0]

    def out(op, cmd, ip=None):
        n[0] += 1
        name = "%02d-%s%s.sh" % (n[0], op, "-" + ip if ip else "")
        if "<" in cmd and ">" in cmd:
            raise SystemExit("f2b-render: unsubstituted tag in %s: %r" % (name, cmd))
        with open(os.path.join(outdir, name), "w") as f:
            f.write(cmd + "\n")

    def static(op):
        out(op, act._getOperation("<%s>" % op, fam))

    def dynamic(op, ip):
        cmd = act.replaceTag("<%s>" % op, act._properties, conditional="family=" + fam)
        cmd = act.replaceDynamicTags(cmd, {"ip": ip, "family": fam})
        out(op, cmd, ip)

    os.makedirs(outdir, exist_ok=True)
    static("actionstart")
    for ip in ips:
        dynamic("actionban", ip)
    static("actioncheck")
    for ip in ips[:len(ips) // 2]:
        dynamic("actionunban", ip)
    static("actioncheck")
    static("actionstop")


if __name__ == "__main__":
    main()
