#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the api component (tests/vm/api/host.sh), on each of 3
# nodes with a file-backed NVDIMM.  What the outside of ddsm promises,
# against a live module:
#
#   A  each node on its own (one-node DSMs): ddsmctl without a module;
#      the module's parameters as loaded (node 0: every default in sysfs,
#      every parameter at its documented low limit at once, then at its
#      high one, loads; every node a third of the values one past a limit:
#      each refused with EINVAL and a kernel log line, in sysfs too for
#      the run-time ones); node 0: ddsmctl's commands, -j
#      (JSON blocks for the host's parser), exit statuses, and the errnos
#      of every ioctl (ddsm-test-errnos common); node 1: the ioctl sizes of
#      earlier ABIs; node 2: DDSM_IOC_REGION's errnos on pmem, the EIO
#      of REGION and PERSIST (a media write made to fail by the self-test
#      build's test_pmem_fail), and CONFIGURE's on a namespace of another cluster (EXDEV), node
#      (EREMCHG) or geometry (EMEDIUMTYPE)
#   B  one cluster of the 3 with pmem: the cluster's regions declared from
#      a cluster.conf by cluster join --config, as ddsm.service does; who
#      may call what (ddsm-test-privs: an unprivileged member of the
#      device's group gets EPERM for REGION's set and TX_REGION, gets the
#      model and uses the declared regions; a read-only file gets EBADF
#      for TX_WRITE, TX_COMMIT and PERSIST); every C example of the docs on
#      every node, as that user, on the declared regions; a program built
#      against ABI 11's header and library
#      (1bb8847) with that library and with this one, peer show -j; then
#      COMMIT's ETIMEDOUT, then PERSIST's (node 1 frozen by the host,
#      tests/vm/api/during.sh) and EHOSTDOWN (a dirty copy of a unit whose home, node
#      2, unloaded)
#
# TAP lines from tests/vm/lib/tap.sh: make stage puts it in
# /ddsm/tests/api/; what it runs (the examples, the parameters, the ABI
# programs) host.sh builds into /ddsm/api.  Exit 1 if any check
# failed.
set -u
ME=${DDSM_NODE_ID:?} N=${DDSM_NR_NODES:?} IPS=${DDSM_NODE_IPS:?}
D=/ddsm
API=$D/api
CTL=$D/bin/ddsmctl
ERRNOS=$D/tests/ddsm-test-errnos
PRIVS=$D/tests/ddsm-test-privs
# The unprivileged user: nobody, in the device's group (the udev rule's
# ddsm; the guest has only root, so the group is made here).
USER_UID=65534 DDSM_GID=990
PM=/dev/pmem0
PARAMS=/sys/module/ddsm/parameters
t0=$SECONDS

TAP_WHO=node$ME
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
wait_for() { local n=$(($1 * 10)); shift; until "$@"; do ((n-- > 0)) || return 1; sleep 0.1; done; }
# A JSON document for the host to parse: between marker lines.
json() { local name=$1; shift; echo "### json $name begin"; "$@"; echo "### json $name end"; }
# A program's TAP lines pass through; then one line for its exit status.
run() {
	local name=$1 rc
	shift
	timeout 180 "$@"
	rc=$?
	check "$name exited 0 (got $rc)" test "$rc" -eq 0
}
unload() { rmmod ddsm 2>/dev/null; ! [ -e /dev/ddsm ]; }

# --- A: one node ------------------------------------------------------------

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
check "pmem0 is a DAX namespace" test "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" = 1

# Without the module: a hint, exit 1.
out=$($CTL node show 2>&1)
rc=$?
check "ddsmctl without the module: exit 1 and a hint to load it (rc $rc: $(echo "$out" | tail -n1))" \
	bash -c "[ $rc -eq 1 ] && grep -q 'is the ddsm module loaded' <<<'$out'"

# insmod ARGS...: 0 if it loaded.  refused NAME ARGS...: insmod must fail
# with EINVAL ("invalid") and the kernel log name the parameter.
refused() {
	local name=$1 before err log
	shift
	before=$(dmesg | wc -l)
	if err=$(insmod $D/ddsm.ko "$@" 2>&1); then
		unload
		nok "limit: insmod $* refused (it loaded)"
		return
	fi
	log=$(dmesg | tail -n +$((before + 1)) | grep -m1 -- "$name" | sed 's/^\[[^]]*\] //')
	if grep -qi invalid <<<"$err" && [ -n "$log" ]; then
		ok "limit: insmod $* refused with EINVAL and a log line (${err##*: } / $log)"
	else
		nok "limit: insmod $* refused with EINVAL and a log line (${err##*: } / ${log:-no log line})"
	fi
}
# The companion a value needs to be valid at all: peer_timeout_ms is at
# least twice heartbeat_ms.
with() {
	case $1 in
	heartbeat_ms) echo "peer_timeout_ms=$(($2 * 2 > 3600000 ? 3600000 : $2 * 2 > 20 ? $2 * 2 : 20))" ;;
	peer_timeout_ms) echo "heartbeat_ms=$(($2 / 2 > 10 ? $2 / 2 : 10))" ;;
	esac
}

if [ "$ME" = 0 ]; then
	check "insmod ddsm.ko (no parameters)" insmod $D/ddsm.ko
	bad=
	while read -r name kind def lo hi rt; do
		have=$(cat $PARAMS/"$name" 2>/dev/null) || { bad+=" $name(absent)"; continue; }
		[ "$def" = - ] && def=
		[ "$have" = "$def" ] || bad+=" $name=$have(docs:$def)"
	done <$API/params
	check "every documented default is the module's (sysfs)${bad:+:$bad}" test -z "$bad"
	# Run-time parameters: sysfs refuses past the limit, takes the limit.
	while read -r name kind def lo hi rt; do
		[ "$rt" = 1 ] && [ "$kind" = num ] || continue
		check "limit: $name=$((hi + 1)) refused in sysfs" \
			bash -c "! echo $((hi + 1)) 2>/dev/null >$PARAMS/$name && [ \"\$(cat $PARAMS/$name)\" = $def ]"
		check "limit: $name=$hi taken in sysfs" \
			bash -c "echo $hi >$PARAMS/$name && [ \"\$(cat $PARAMS/$name)\" = $hi ] && echo $def >$PARAMS/$name"
	done <$API/params
	# ddsmctl on a live node: every show command, as text and as JSON.
	for c in "node show" "peer show" "unit show 0x1000" "pmem show" \
		"tx stats" "status" "version" "config keys"; do
		check "ddsmctl $c" bash -c "$CTL $c >/dev/null"
		json "${c// /_}" $CTL -j $c
	done
	check "ddsmctl node show: snake_case keys (node_id: 0)" bash -c "$CTL node show | grep -qx 'node_id: 0'"
	check "ddsmctl peer show: a block per peer (peer 0: / state: self)" \
		bash -c "$CTL peer show | grep -qx 'peer 0:' && $CTL peer show | grep -qx '    state: self'"
	check "ddsmctl status keeps its old lines (node id: 0)" bash -c "$CTL status | grep -qx 'node id: 0'"
	check "ddsmctl peer show --help exits 0" bash -c "$CTL peer show --help | grep -q 'peer show'"
	check "ddsmctl unit show <size>: exit 1 (ERANGE)" bash -c "$CTL unit show 1G 2>/dev/null; [ \$? -eq 1 ]"
	check "ddsmctl bogus: exit 2" bash -c "$CTL bogus 2>/dev/null; [ \$? -eq 2 ]"
	check "ddsmctl cluster wait on one node: exit 0" $CTL cluster wait --timeout 0
	check "ddsmctl --version: module ABI 11" bash -c "$CTL --version | grep -qx 'module ABI 11 (/dev/ddsm)'"
	check "ddsmctl home (old verb) = unit show" bash -c "[ \"\$($CTL home 0x1000)\" = \"\$($CTL unit show 0x1000)\" ]"
	check "rmmod ddsm" unload
	check "insmod ddsm.ko for the errno checks" insmod $D/ddsm.ko
	run ddsm-test-errnos-common $ERRNOS common
	check "rmmod ddsm" unload
fi

# Every parameter at its low limit at once, then at its high one (node 0):
# each loads and reads back.  Then the values one past each limit, a third
# of them on each node: each is refused.
at_limit() { # lo|hi: "name=value" words, and the values sysfs must show
	local which=$1 name kind def lo hi rt v
	args='' want=''
	while read -r name kind def lo hi rt; do
		case $kind:$name in
		num:node_id | num:size | num:nr_backups) continue ;;	# below
		num:*) [ "$lo" = - ] && continue
			v=$lo
			[ "$which" = hi ] && v=$hi ;;
		enum:*) [ "$which" = hi ] || continue
			v=${lo##*,} ;;
		*) continue ;;
		esac
		args+=" $name=$v"
		want+=" $name=$v"
	done <$API/params
	# size: 4K is the least; 64G would need 1 GiB of metadata here.
	# node_id is bounded by nodes (CONFIGURE's ERANGE), nr_backups=1
	# needs pmem= and 2 nodes (the backup component).
	[ "$which" = lo ] && args+=" size=4096" && want+=" size=4096"
}
if [ "$ME" = 0 ]; then
	for which in lo hi; do
		at_limit $which
		# shellcheck disable=SC2086
		if insmod $D/ddsm.ko $args 2>/tmp/insmod.err; then
			bad=
			for w in $want; do
				[ "$(cat $PARAMS/"${w%%=*}")" = "${w#*=}" ] || bad+=" $w(reads $(cat $PARAMS/"${w%%=*}"))"
			done
			check "limits: every parameter at its $which limit loads and reads back${bad:+:$bad}" test -z "$bad"
			unload
		else
			nok "limits: every parameter at its $which limit loads ($(cat /tmp/insmod.err); $(dmesg | tail -n 3 | tr '\n' ' '))"
		fi
	done
fi
i=0
while read -r name kind def lo hi rt; do
	i=$((i + 1))
	[ $((i % N)) = "$ME" ] || continue
	case $kind in
	num)
		[ "$lo" = - ] && continue
		[ "$name" = node_id ] && continue	# bounded by nodes
		# shellcheck disable=SC2046
		[ "$lo" -gt 0 ] && refused "$name" "$name=$((lo - 1))" $(with "$name" "$((lo - 1))")
		step=1
		[ "$name" = size ] && step=4096
		refused "$name" "$name=$((hi + step))" ;;
	enum)
		refused "$name" "$name=bogus" ;;
	bool)
		refused "$name" "$name=2" ;;
	esac
done <$API/params

# Node 1: the ioctl numbers of earlier ABIs (the size is in the number).
if [ "$ME" = 1 ]; then
	check "insmod ddsm.ko for the ABI sizes" insmod $D/ddsm.ko
	run abi-sizes $API/abi/abi-sizes
	check "rmmod ddsm" unload
fi

# Node 2: REGION on pmem, then CONFIGURE onto namespaces that do not fit.
if [ "$ME" = 2 ]; then
	# One node homes every unit: a space the 64 MiB namespace can hold.
	check "insmod ddsm.ko size=32M pmem=$PM pmem_format=1" insmod $D/ddsm.ko size=32M pmem=$PM pmem_format=1
	run ddsm-test-errnos-pmem $ERRNOS pmem
	check "rmmod ddsm" unload
	join_fails() { # ERRNO TEXT ID LIST
		local out rc tries=0
		# Right after a mount, recovery may hold frames for a moment
		# (EBUSY): ask again.
		while out=$($CTL cluster join "$3" "$4" 2>&1); rc=$?
			[ $rc -eq 1 ] && grep -q busy <<<"$out" && [ $((tries += 1)) -lt 20 ]; do
			sleep 0.5
		done
		check "errno DDSM_IOC_CONFIGURE $1: cluster join $3 $4 fails, back to one node (rc $rc: $out)" \
			bash -c "[ $rc -eq 1 ] && grep -q '$2' <<<'$out' && $CTL node show | grep -qx 'nr_nodes: 1'"
	}
	# The namespace of a one-node cluster: another cluster's (its
	# derived cluster_id) for a cluster of two.
	insmod $D/ddsm.ko size=32M pmem=$PM pmem_format=1 && unload
	if insmod $D/ddsm.ko size=32M pmem=$PM; then
		join_fails EXDEV "cross-device link" 0 "10.77.0.3,10.77.0.1"
		unload
	else
		nok "errno DDSM_IOC_CONFIGURE EXDEV: insmod pmem=$PM"
	fi
	# One cluster_id: node 0's namespace is not node 1's (EREMCHG), nor
	# one for two nodes (EMEDIUMTYPE).
	insmod $D/ddsm.ko size=32M pmem=$PM pmem_format=1 cluster_id=777 && unload
	if insmod $D/ddsm.ko size=32M pmem=$PM cluster_id=777; then
		join_fails EREMCHG "Remote address changed" 1 "10.77.0.1,10.77.0.3"
		join_fails EMEDIUMTYPE "Wrong medium type" 0 "10.77.0.3,10.77.0.1"
		unload
	else
		nok "errno DDSM_IOC_CONFIGURE EREMCHG: insmod pmem=$PM cluster_id=777"
	fi
fi

# --- B: one cluster with pmem ------------------------------------------------

# 64 MiB over 3 homes fits each node's 64 MiB namespace.
ARGS="size=64M node_id=$ME nodes=$IPS pmem=$PM pmem_format=1"
# shellcheck disable=SC2086
if ! insmod $D/ddsm.ko $ARGS; then
	nok "insmod ddsm.ko $ARGS"
	exit 1
fi
ok "insmod ddsm.ko $ARGS ($((SECONDS - t0)) s in)"
# The others may still be in part A: wait for them longer than usual.
if ! $CTL cluster wait --timeout 300; then
	nok "every peer up (ddsmctl cluster wait)"
	$CTL status | sed "s/^/# node$ME: /"
	exit 1
fi
ok "every peer up"
# The cluster's regions, as ddsm.service declares them (root, cluster join
# --config): README.md's examples use the first two, ddsm-test-privs the
# others (24M: Strict, model 1).
cat >/tmp/cluster.conf <<CONF
nodes = ${IPS//,/, }
node_id = $ME
size = 64M
pmem = $PM
region = 4M 4K sync
tx_region = 8M 68K
region = 24M 16K strict
tx_region = 28M 16K
CONF
out=$($CTL cluster join --config /tmp/cluster.conf 2>&1)
rc=$?
echo "$out" | sed "s/^/# node$ME: join: /"
check "cluster join --config declares the file's regions (rc $rc)" \
	bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^region \|^tx_region ' <<<'$out') -eq 4 ] &&
		$CTL region show 4M | grep -q sync && $CTL region show 24M | grep -q strict"
# /dev/ddsm as the udev rule of ddsm-tools makes it: group ddsm, 0660.
grep -q '^ddsm:' /etc/group || echo "ddsm:x:$DDSM_GID:" >>/etc/group
check "/dev/ddsm: group ddsm, mode 0660" bash -c "chgrp $DDSM_GID /dev/ddsm && chmod 0660 /dev/ddsm"
run privs $PRIVS "$ME" $USER_UID $DDSM_GID 0x1800000 1 0x1C00000
# One unit of node 1, transactional on every node, for COMMIT's ETIMEDOUT.
run tx-region $ERRNOS tx-region 1
json peer_show_cluster $CTL -j peer show
json region_show $CTL -j region show 0
json pmem_show_cluster $CTL -j pmem show
check "ddsmctl peer show: $N peers, every one self or up" \
	bash -c "[ \$($CTL peer show | grep -cE '^    state: (self|up)$') -eq $N ]"

# Every example of the docs, on every node, as the unprivileged user, on
# the regions root declared; they pace each other.
while IFS=$'\t' read -r name cmd where; do
	t=$SECONDS
	(cd $API/examples && timeout 150 $PRIVS as $USER_UID $DDSM_GID bash -c "$cmd") 2>&1 | sed "s/^/# $name: /"
	rc=${PIPESTATUS[0]}
	check "example $name ($where): '$cmd' exited 0 (got $rc) in $((SECONDS - t)) s" test "$rc" -eq 0
done <$API/examples/manifest

# A program built against ABI 11's header and library, with each.
LD_LIBRARY_PATH=$API/abi/old run "abi-compat with 1bb8847's libddsm" $API/abi/abi-compat old
LD_LIBRARY_PATH=$D/lib run "abi-compat with this libddsm" $API/abi/abi-compat new

# PERSIST's ETIMEDOUT: node 1 frozen by the host (during.sh) while node 0
# asks it, with a short fault_timeout_ms.  Flags in global memory pace
# the nodes: F0 (unit 15, homed on node 0) "node 0 is done with node 1".
F0=0xF000 F2=0xC000
case $ME in
0)
	# COMMIT's ETIMEDOUT: node 1 frozen (1200 ms) past six times 100 ms.
	echo 100 >$PARAMS/fault_timeout_ms
	echo "api freeze-commit" >/dev/ttyS1
	run commit-timeout $ERRNOS commit-timeout 1
	echo 300 >$PARAMS/fault_timeout_ms
	echo "api freeze1" >/dev/ttyS1
	run persist-timeout $ERRNOS persist-timeout 0x1000
	echo 10000 >$PARAMS/fault_timeout_ms
	$ERRNOS flag-set $F0
	# EHOSTDOWN: a dirty copy of node 2's unit 2, then node 2 leaves.
	run dirty $ERRNOS dirty 0x2000
	$ERRNOS flag-set $F2
	check "node 2 gone (down or dead) after it unloaded" \
		wait_for 30 bash -c "$CTL peer show 2 | grep -qxE '    state: (down|dead)'"
	run persist-hostdown $ERRNOS persist-hostdown 0x2000
	ok "errnos ETIMEDOUT and EHOSTDOWN of DDSM_IOC_PERSIST: see above"
	;;
1)
	run flag-wait $ERRNOS flag-wait $F0 90
	;;
2)
	run flag-wait $ERRNOS flag-wait $F2 120
	;;
esac
check "rmmod ddsm" unload
echo "# node$ME: api guest done in $((SECONDS - t0)) s"
tap_exit
