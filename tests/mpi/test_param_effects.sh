#!/bin/sh
# test_param_effects.sh — parameters that say who and where a job is take
# effect from the environment and from a configuration file alike
# (SCR_USER_NAME, SCR_JOB_ID, SCR_JOB_NAME, SCR_CLUSTER_NAME, SCR_NODE_NAME),
# and so do SCR_FLUSH_ASYNC=1 and the limits of the background flush
# (SCR_FLUSH_ASYNC_BW, SCR_FLUSH_ASYNC_PERCENT: the node's transfer file
# holds them), without a word; those limits set while SCR_FLUSH_ASYNC is 0
# are said to have no effect, with their origin;
# SCR parameters this version does not implement are refused with a warning
# (SCR_LOG_DB_*, SCR_COPY_METADATA, SCR_AXL_MKDIR); SCR_CRC_ON_DELETE says
# which file in cache no longer matches its CRC as it deletes it.
. "$top_srcdir/tests/mpi/mpi-lib.sh"
mpi_setup param-effects

# count TEXT: how many lines of the last run's stderr hold TEXT
count() { grep -cF -- "$1" "$mpi_err"; }
# jobdesc KEY VALUE: the index's descriptor of ckpt.1 holds KEY VALUE
jobdesc() { mpi_index_paths | grep -qx "DSET/[0-9]*/DSETDESC/$1/$2"; }
# transfer_holds DIR KEY VALUE: the transfer file in every control
# directory DIR (a glob) holds KEY VALUE
transfer_holds() {
    for _t in $1/transfer.scr; do
        mpi_tree_paths "$_t" | grep -qx "$2/$3" || { echo "$_t does not hold $2 $3"; return 1; }
    done
}

# --- from the environment ---------------------------------------------------------
mpi_run 4 2 SCR_FLUSH=1 SCR_USER_NAME=envuser SCR_JOB_NAME=envjob SCR_CLUSTER_NAME=envcluster \
    SCR_FLUSH_ASYNC=1 SCR_FLUSH_ASYNC_BW=10MB SCR_LOG_DB_ENABLE=1 SCR_COPY_METADATA=1 -- --steps 1
mpi_expect_restart "a_run_with_identity_and_refused_parameters_in_the_environment" 0 1
check "env_SCR_USER_NAME_names_the_cache_directory" test -d "$scratch/cache/node0/envuser/scr.$SCR_JOB_ID"
check "env_SCR_JOB_NAME_is_the_datasets_job_name" jobdesc JOBNAME envjob
check "env_SCR_CLUSTER_NAME_is_the_datasets_cluster" jobdesc CLUSTER envcluster
check "env_SCR_FLUSH_ASYNC=1_and_SCR_FLUSH_ASYNC_BW_are_taken_without_a_word" test "$(count 'SCR_FLUSH_ASYNC')" -eq 0
check "env_SCR_FLUSH_ASYNC_BW_limits_the_background_flush" \
    transfer_holds "$scratch/cntl/node*/envuser/scr.$SCR_JOB_ID" BW 10485760.000000
check "SCR_LOG_DB_ENABLE_is_refused_pointing_to_the_text_and_json_logs" \
    test "$(count 'environment: SCR_LOG_DB_ENABLE is refused: SCR'"'"'s MySQL event log is not part of this version; events go to the text log (SCR_LOG_TXT_ENABLE) and to .scr/events.jsonl in the prefix, which scr-log shows')" -eq 1
check "SCR_COPY_METADATA_is_refused_as_an_SCR_3.1_parameter_not_implemented" \
    test "$(count 'environment: SCR_COPY_METADATA is refused: it is an SCR 3.1 parameter this version does not implement')" -eq 1

# a question to SCR_Config on every rank reads the configuration again: the
# refusal is still said by rank 0 alone (once there, once at SCR_Init)
mpi_reset
mpi_run 4 2 SCR_COPY_METADATA=1 -- --steps 1 --config SCR_FLUSH
mpi_expect_restart "a_run_asking_SCR_Config_with_a_refused_parameter_in_the_environment" 0 1
check "the_refusal_is_said_by_rank_0_only" \
    test "$(count 'environment: SCR_COPY_METADATA is refused')" -eq 2 -a "$(grep -c 'SCR rank [1-9][^:]*: warning' "$mpi_err")" -eq 0

# --- from a configuration file (SCR_NODE_NAME and SCR_JOB_ID out of the environment) ---
mpi_reset
cat > "$scratch/user.conf" <<CONF
SCR_USER_NAME=fileuser
SCR_JOB_ID=filejob
SCR_JOB_NAME=filejobname
SCR_CLUSTER_NAME=filecluster
SCR_NODE_NAME=filenode
SCR_FLUSH_ASYNC=1
SCR_FLUSH_ASYNC_PERCENT=5
SCR_LOG_DB_HOST=db.example
SCR_AXL_MKDIR=1
CONF
printf '#!/bin/sh\nunset SCR_NODE_NAME\nexec "%s" "$@"\n' "$mpi_app" > "$scratch/no-node-name"
chmod +x "$scratch/no-node-name"
mpi_run_program "$scratch/no-node-name" 4 2 SCR_FLUSH=1 SCR_JOB_ID= SCR_CONF_FILE="$scratch/user.conf" -- --steps 1
mpi_expect_restart "a_run_with_identity_and_refused_parameters_in_a_config_file" 0 1
check "file_SCR_NODE_NAME_SCR_USER_NAME_and_SCR_JOB_ID_name_the_cache_directory" \
    test -d "$scratch/cache/filenode/fileuser/scr.filejob"
check "file_SCR_JOB_NAME_is_the_datasets_job_name" jobdesc JOBNAME filejobname
check "file_SCR_CLUSTER_NAME_is_the_datasets_cluster" jobdesc CLUSTER filecluster
check "file_SCR_JOB_ID_is_the_datasets_job_id" jobdesc JOBID filejob
check "file_SCR_FLUSH_ASYNC=1_and_SCR_FLUSH_ASYNC_PERCENT_are_taken_without_a_word" \
    test "$(count 'SCR_FLUSH_ASYNC')" -eq 0
check "file_SCR_FLUSH_ASYNC_PERCENT_limits_the_background_flush" \
    transfer_holds "$scratch/cntl/filenode/fileuser/scr.filejob" PERCENT 5.000000
check "file_SCR_LOG_DB_HOST_is_refused" test "$(count "$scratch/user.conf:8: SCR_LOG_DB_HOST is refused")" -eq 1
check "file_SCR_AXL_MKDIR_is_refused" \
    test "$(count "$scratch/user.conf:9: SCR_AXL_MKDIR is refused: it is an SCR 3.1 parameter")" -eq 1

# --- the limits of a background flush without one -----------------------------------------
mpi_reset
printf 'SCR_FLUSH_ASYNC_PERCENT=5\n' > "$scratch/limits.conf"
mpi_run 4 2 SCR_FLUSH=1 SCR_FLUSH_ASYNC_BW=10MB SCR_CONF_FILE="$scratch/limits.conf" -- --steps 1
mpi_expect_restart "a_run_with_background_flush_limits_and_SCR_FLUSH_ASYNC_0" 0 1
check "env_SCR_FLUSH_ASYNC_BW_without_SCR_FLUSH_ASYNC_is_said_once_to_have_no_effect" \
    test "$(count 'SCR_FLUSH_ASYNC_BW=10MB (from environment) has no effect: it limits a background flush, and SCR_FLUSH_ASYNC is 0')" -eq 1
check "file_SCR_FLUSH_ASYNC_PERCENT_without_SCR_FLUSH_ASYNC_is_said_once_to_have_no_effect_naming_file_and_line" \
    test "$(count "SCR_FLUSH_ASYNC_PERCENT=5 (from $scratch/limits.conf:1) has no effect: it limits a background flush, and SCR_FLUSH_ASYNC is 0")" -eq 1
check "without_SCR_FLUSH_ASYNC_no_flush_runs_in_the_background" test -z "$(ls "$scratch"/cntl/node*/*/scr.*/transfer.scr 2> /dev/null)"

# --- SCR_CRC_ON_DELETE ------------------------------------------------------------------
# ckpt.1 stays in cache only; one byte of rank 1's file is then flipped, and
# the next run purges the cache (SCR_CACHE_PURGE) before anything reads it
damaged_cache() {
    mpi_reset
    mpi_run 4 2 SCR_FLUSH=0 -- --steps 1 --size 3000
    damaged=$(find "$scratch/cache" -name 'rank1_f0.dat')
    mpi_flip_byte "$damaged" 100
}
damaged_cache
# (the new checkpoint bypasses the cache, so that nothing takes the file's place)
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_PURGE=1 SCR_CRC_ON_DELETE=1 SCR_CACHE_BYPASS=1 -- --steps 1 --size 3000
mpi_expect_restart "a_purging_run_with_SCR_CRC_ON_DELETE_starts_afresh" 0 1
check "SCR_CRC_ON_DELETE_names_rank_file_and_both_crcs_of_the_damaged_file" \
    sh -c "grep -q \"rank 1's file $damaged, checked before its deletion from cache (SCR_CRC_ON_DELETE), is damaged: CRC32 0x[0-9a-f]\{8\} found, 0x[0-9a-f]\{8\} recorded\" '$mpi_err'"
check "only_the_damaged_file_is_reported" test "$(count 'SCR_CRC_ON_DELETE')" -eq 1
check "the_damaged_file_is_deleted_all_the_same" test ! -e "$damaged"
damaged_cache
mpi_run 4 2 SCR_FLUSH=0 SCR_CACHE_PURGE=1 -- --steps 1 --size 3000
check "without_SCR_CRC_ON_DELETE_nothing_is_checked" test "$(count 'is damaged')" -eq 0

done_testing
