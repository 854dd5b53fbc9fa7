#!/bin/sh
# test_job_names.sh — the commands refuse a node name, user name or job id
# that would not stay one directory level below SCR_CNTL_BASE: a '/', dots
# alone, an empty value or a control character, named with the variable (or
# option) and the value, before any directory is looked at.
. "$top_srcdir/tests/tap.sh"

scavenge="$top_builddir/cli/scr-scavenge"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scr-names-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for var in $(env | sed -n 's/^\(SCR_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SLURM[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$var"
done
printf 'SCR_CNTL_BASE=%s/cntl/%%N\n' "$tmp" > "$tmp/scr.conf"
export SCR_SYSTEM_CONF_FILE="$tmp/scr.conf" SCR_PREFIX="$tmp"
cd "$tmp" || exit 99

# refused NAME STATUS TEXT VAR=VALUE... [-- ARGS]: scr-scavenge --status with
# the variables set exits STATUS and says TEXT on stderr
refused() {
    name=$1 want=$2 text=$3
    shift 3
    (
        while [ $# -gt 0 ] && [ "$1" != -- ]; do export "${1?}"; shift; done
        [ "${1:-}" = -- ] && shift
        exec "$scavenge" --status "$@"
    ) > "$tmp/out" 2> "$tmp/err"
    status=$?
    if [ $status -eq "$want" ] && grep -qF -- "$text" "$tmp/err" && [ ! -e "$tmp/cntl" ]; then
        ok "$name"
    else
        not_ok "$name" "status $status, wanted $want and: $text
$(cat "$tmp/out" "$tmp/err")
$(find "$tmp/cntl" 2> /dev/null)"
    fi
}

refused "a_node_name_with_a_slash_is_refused_naming_the_variable" 1 \
    "SCR_NODE_NAME='../../escape' cannot name a directory: it contains '/'" SCR_NODE_NAME=../../escape
refused "a_node_name_of_dots_is_refused" 1 "SCR_NODE_NAME='..' cannot name a directory" SCR_NODE_NAME=..
refused "an_empty_node_name_is_refused_not_replaced_by_the_host_name" 1 \
    "SCR_NODE_NAME='' cannot name a directory: it is empty" SCR_NODE_NAME=
refused "a_slurm_node_name_with_a_slash_is_refused" 1 "SLURMD_NODENAME='a/b' cannot name a directory" \
    SLURMD_NODENAME=a/b
refused "a_user_name_that_leads_out_is_refused" 1 "SCR_USER_NAME='../root' cannot name a directory" \
    SCR_USER_NAME=../root
refused "a_user_name_with_a_control_character_is_refused_and_shown_escaped" 1 \
    "SCR_USER_NAME='ann\\nbob' cannot name a directory: it contains a control character" "SCR_USER_NAME=ann
bob"
refused "a_job_id_of_dots_is_refused" 1 "SCR_JOB_ID='.' cannot name a directory" SCR_JOB_ID=.
refused "a_slurm_job_id_with_a_slash_is_refused" 1 "SLURM_JOB_ID='1/../../x' cannot name a directory" \
    SLURM_JOB_ID=1/../../x
refused "the_node_option_is_checked_as_a_usage_error" 2 "--node '../x' cannot name a directory: it contains '/'" \
    SCR_JOB_ID=7 -- --node ../x

# a usable name goes on to look for the control directory (in the base of
# $SCR_SYSTEM_CONF_FILE, which is honoured for a file root owns)
if [ "$(id -u)" -eq 0 ]; then
    SCR_JOB_ID=7 SCR_NODE_NAME=node0 "$scavenge" --status > "$tmp/out" 2> "$tmp/err"
    check "ordinary_names_reach_the_control_directory" grep -qF "$tmp/cntl/node0/" "$tmp/err"
else
    skip "ordinary_names_reach_the_control_directory" "needs root for SCR_SYSTEM_CONF_FILE"
fi

done_testing
