/* layer_violation.c — an upward #include, a fixture of tests/lib/test_layers.sh.
 *
 * Code of a low layer (here lib/util/) that reached for the state of a run
 * (lib/cache/scr_run.h) would tie the commands and the plugin to MPI.
 * tests/lib/test_layers.sh compiles this file with lib/util's flags and
 * expects the compiler to refuse it, and with lib/cache's, where it builds.
 * Never built into anything. */
#include "scr_run.h"

int scr_layer_violation(void);
