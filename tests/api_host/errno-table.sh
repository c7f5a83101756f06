#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs/api.md's errno tables as a C header, for the fuzzer
# (tests/vm/src/ddsm-fuzz.c): one entry per ioctl ("Errors, ioctl by
# ioctl": the ioctl's table, the "Every ioctl" table and ENOMEM, which any
# allocating call may return) and one per system call ("What the device
# refuses").  An errno the fuzzer sees that its entry lacks fails the run,
# so the page and the module cannot drift apart.  Run by tests/vm/Makefile.
#
#   errno-table.sh docs/api.md > doc_errnos.h
set -euo pipefail
doc=${1:?usage: errno-table.sh docs/api.md}

awk '
function errnos(s,   out, m) {
	out = ""
	while (match(s, /`E[A-Z0-9]+`/)) {
		m = substr(s, RSTART + 1, RLENGTH - 2)
		if (index(" " out " ", " " m " ") == 0)
			out = out (out == "" ? "" : " ") m
		s = substr(s, RSTART + RLENGTH)
	}
	return out
}
/^### What the device refuses/ { sect = "calls"; next }
/^## Errors, ioctl by ioctl/ { sect = "ioctls"; next }
/^##? / && !/^###/ { if (sect != "ioctls") sect = "" }
/^## ABI versions/ { sect = "" }
sect == "calls" && /^\| `[a-z_]+`/ {
	split($0, f, "|")
	name = f[2]; gsub(/[ `]/, "", name)
	calls[++nc] = name; callerr[name] = errnos(f[3])
	next
}
sect == "ioctls" && /^#### / {
	cur = $0; sub(/^#### /, "", cur); gsub(/`/, "", cur)
	if (cur == "Every ioctl")
		cur = "*"
	else
		iocs[++ni] = cur
	iocerr[cur] = ""
	next
}
sect == "ioctls" && cur != "" && /^\| `E[A-Z0-9]+`/ {
	split($0, f, "|")
	e = f[2]; gsub(/[ `]/, "", e)
	iocerr[cur] = iocerr[cur] (iocerr[cur] == "" ? "" : " ") e
}
function entry(name, cmd, list,   n, a, i, s) {
	n = split(list, a, " ")
	s = ""
	for (i = 1; i <= n; i++)
		s = s a[i] ", "
	printf "\t{ \"%s\", %s, { %s0 } },\n", name, cmd, s
}
END {
	if (!nc || !ni || !("*" in iocerr)) {
		print "errno-table.sh: no errno tables found" > "/dev/stderr"
		exit 1
	}
	print "/* Generated from docs/api.md by tests/api_host/errno-table.sh: do not edit. */"
	print "#include <errno.h>"
	print "#include <linux/ddsm.h>"
	print ""
	print "#define DOC_ERRNOS_MAX\t24"
	print ""
	print "struct doc_errnos {"
	print "\tconst char *call;"
	print "\tunsigned long cmd;\t/* an ioctl; 0 for a system call */"
	print "\tint err[DOC_ERRNOS_MAX];\t/* ends at 0 */"
	print "};"
	print ""
	print "/* Per ioctl: its table, \"Every ioctl\" and ENOMEM; \"*\": any other command. */"
	print "static const struct doc_errnos doc_ioctl_errnos[] = {"
	entry("*", "0", iocerr["*"] " ENOMEM")
	for (i = 1; i <= ni; i++)
		entry(iocs[i], iocs[i], iocerr[iocs[i]] " " iocerr["*"] " ENOMEM")
	print "};"
	print ""
	print "static const struct doc_errnos doc_call_errnos[] = {"
	for (i = 1; i <= nc; i++)
		entry(calls[i], "0", callerr[calls[i]])
	print "};"
}' "$doc"
