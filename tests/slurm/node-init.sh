#!/bin/sh
# node-init.sh NODE LAB CMD... — turn the namespaces it runs in into node NODE.
#
# start-cluster.sh runs it through `nsenter --net=<node's netns> unshare
# --uts --mount`, so everything here stays inside that node: its host name,
# a private /dev/shm (a node's RAM: lost with the node, unseen by others),
# and the lab's hosts file and Slurm configuration over /etc/hosts and
# /etc/slurm (so that Slurm commands run on the node find them). /tmp stays
# shared with the host, as a shared file system would be. Then it execs CMD
# (slurmd, which daemonizes and writes its PID file).
set -e
node=$1
lab=$2
shift 2
hostname "$node"
mount -t tmpfs -o mode=1777,size=1g "shm-$node" /dev/shm
mount --bind "$lab/etc/hosts" /etc/hosts
[ -d /etc/slurm ] && mount --bind "$lab/etc" /etc/slurm
exec "$@"
