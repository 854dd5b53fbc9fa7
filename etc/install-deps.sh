#!/bin/sh
# install-deps.sh — install the Debian 12 packages needed to build and test SCR.
# Run as root. Used by the README's first command and by CI.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    ca-certificates gcc make autoconf automake libtool pkg-config \
    libopenmpi-dev openmpi-bin \
    libslurm-dev slurmctld slurmd slurm-client munge \
    libjson-c-dev zlib1g-dev libisal-dev \
    clang libclang-rt-14-dev python3 python3-mpi4py cmake strace \
    libsimgrid-dev
