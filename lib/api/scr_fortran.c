/* scr_fortran.c — the Fortran bindings of scr.h (programs include 'scrf.h').
 *
 * Every SCR_X(..., IERROR) subroutine of the SCR API is a C function
 * scr_x_(...) here that calls SCR_X and puts its return code in IERROR.
 *
 * Calling convention: gfortran's (what Open MPI's mpifort runs here). Link
 * names are lower case with one trailing underscore, the default of
 * gfortran and of most Fortran compilers on Linux. No other spelling is
 * provided (SCR_INIT, scr_init, scr_init__): bare lower-case names could
 * collide with the library's own scr_ namespace, and the others belong to
 * compilers and options (-fsecond-underscore) we neither build nor test
 * with. Arguments come by reference; INTEGER is C int (default kind:
 * -fdefault-integer-8 is not supported). Each CHARACTER argument brings a
 * hidden length, appended after the last argument in the order of the
 * CHARACTER arguments.
 *
 * Strings in: trailing blanks are dropped and a NUL ends the text, as in
 * C. A name that is still SCR_MAX_FILENAME characters or longer is refused
 * with SCR_ERR_ARG, never cut short.
 * Strings out: copied and padded with blanks. A result longer than the
 * Fortran variable is refused with SCR_ERR_ARG, never cut short; the
 * variable is then all blanks, as it is after any failed call.
 * Each refusal prints one error line naming the subroutine and argument.
 *
 * SCR_Configf is C only (it takes a printf format and varargs). SCR_Config
 * is SCR_CONFIG(CONFIG, VALUE, IERROR), as in SCR's own bindings. */
#include "scr.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdlib.h>
#include <string.h>

/* The type of a hidden CHARACTER length: size_t since gfortran 8 (int
 * before; such old compilers are not supported). */
typedef size_t scr_fstrlen;

/* Only Fortran calls these, so they have no header; declared here for
 * -Wmissing-prototypes. */
void scr_init_(int *ierror);
void scr_finalize_(int *ierror);
void scr_get_version_(char *version, int *ierror, scr_fstrlen version_len);
void scr_should_exit_(int *flag, int *ierror);
void scr_config_(const char *config, char *value, int *ierror, scr_fstrlen config_len,
                 scr_fstrlen value_len);
void scr_route_file_(const char *name, char *file, int *ierror, scr_fstrlen name_len,
                     scr_fstrlen file_len);
void scr_need_checkpoint_(int *flag, int *ierror);
void scr_start_checkpoint_(int *ierror);
void scr_complete_checkpoint_(const int *valid, int *ierror);
void scr_have_restart_(int *flag, char *name, int *ierror, scr_fstrlen name_len);
void scr_start_restart_(char *name, int *ierror, scr_fstrlen name_len);
void scr_complete_restart_(const int *valid, int *ierror);
void scr_start_output_(const char *name, const int *flags, int *ierror, scr_fstrlen name_len);
void scr_complete_output_(const int *valid, int *ierror);
void scr_current_(const char *name, int *ierror, scr_fstrlen name_len);
void scr_drop_(const char *name, int *ierror, scr_fstrlen name_len);
void scr_delete_(const char *name, int *ierror, scr_fstrlen name_len);

/* --- strings ----------------------------------------------------------- */

/* Length of the text of a Fortran string: up to a NUL, without trailing
 * blanks. Reads at most len bytes. */
static size_t fstr_text_len(const char *f, scr_fstrlen len)
{
    const char *nul = memchr(f, '\0', len);
    size_t n = nul ? (size_t)(nul - f) : len;
    while (n > 0 && f[n - 1] == ' ') n--;
    return n;
}

/* Copy the text of the Fortran string f into c (SCR_MAX_FILENAME bytes)
 * as a C string; refuse a text that does not fit. */
static int from_fortran(const char *f, scr_fstrlen len, char *c, const char *call, const char *arg)
{
    size_t n = fstr_text_len(f, len);
    if (n >= SCR_MAX_FILENAME) {
        scr_err("%s: %s has %zu characters; it must have fewer than SCR_MAX_FILENAME (%d)", call,
                arg, n, SCR_MAX_FILENAME);
        return SCR_ERR_ARG;
    }
    memcpy(c, f, n);
    c[n] = '\0';
    return SCR_SUCCESS;
}

/* Copy the C string c into the Fortran string f, padded with blanks; if it
 * does not fit, f is left all blanks. c is read up to SCR_MAX_FILENAME
 * bytes, the size of every buffer the C API fills. */
static int to_fortran(const char *c, char *f, scr_fstrlen len, const char *call, const char *arg)
{
    size_t n = strnlen(c, SCR_MAX_FILENAME);
    memset(f, ' ', len);
    if (n == SCR_MAX_FILENAME) {
        scr_err("%s: the library returned a %s with no NUL in its SCR_MAX_FILENAME bytes", call,
                arg);
        return SCR_FAILURE;
    }
    if (n > len) {
        scr_err("%s: %s holds %zu characters, too few for the result '%s' (%zu)", call, arg,
                (size_t)len, c, n);
        return SCR_ERR_ARG;
    }
    memcpy(f, c, n);
    return SCR_SUCCESS;
}

/* --- general ----------------------------------------------------------- */

void scr_init_(int *ierror)
{
    *ierror = SCR_Init();
}

void scr_finalize_(int *ierror)
{
    *ierror = SCR_Finalize();
}

void scr_get_version_(char *version, int *ierror, scr_fstrlen version_len)
{
    const char *v = SCR_Get_version();
    if (v == NULL) {
        memset(version, ' ', version_len);
        scr_err("SCR_GET_VERSION: the library has no version string");
        *ierror = SCR_FAILURE;
        return;
    }
    *ierror = to_fortran(v, version, version_len, "SCR_GET_VERSION", "VERSION");
}

void scr_should_exit_(int *flag, int *ierror)
{
    *ierror = SCR_Should_exit(flag);
}

/* VALUE gets the value a query ("KEY", "TABLE=ENTRY ATTR") returns, blanks
 * when it is unset and after a set. SCR_Config tells its own errors only
 * by its message (it returns NULL for them as for a set), so IERROR can
 * only report CONFIG or VALUE being too long. */
void scr_config_(const char *config, char *value, int *ierror, scr_fstrlen config_len,
                 scr_fstrlen value_len)
{
    char text[SCR_MAX_FILENAME];
    *ierror = from_fortran(config, config_len, text, "SCR_CONFIG", "CONFIG");
    memset(value, ' ', value_len);
    if (*ierror != SCR_SUCCESS) return;

    /* only a query returns a string, and it is ours to free (scr.h) */
    const char *got = SCR_Config(text);
    if (got != NULL) {
        *ierror = to_fortran(got, value, value_len, "SCR_CONFIG", "VALUE");
        free((void *)got);
    }
}

/* --- files ------------------------------------------------------------- */

void scr_route_file_(const char *name, char *file, int *ierror, scr_fstrlen name_len,
                     scr_fstrlen file_len)
{
    char in[SCR_MAX_FILENAME];
    char out[SCR_MAX_FILENAME] = "";
    /* read NAME before writing FILE: they may be the same variable */
    *ierror = from_fortran(name, name_len, in, "SCR_ROUTE_FILE", "NAME");
    if (*ierror == SCR_SUCCESS) *ierror = SCR_Route_file(in, out);
    if (*ierror == SCR_SUCCESS)
        *ierror = to_fortran(out, file, file_len, "SCR_ROUTE_FILE", "FILE");
    else
        memset(file, ' ', file_len);
}

/* --- checkpoints ------------------------------------------------------- */

void scr_need_checkpoint_(int *flag, int *ierror)
{
    *ierror = SCR_Need_checkpoint(flag);
}

void scr_start_checkpoint_(int *ierror)
{
    *ierror = SCR_Start_checkpoint();
}

void scr_complete_checkpoint_(const int *valid, int *ierror)
{
    *ierror = SCR_Complete_checkpoint(*valid);
}

/* --- restart ----------------------------------------------------------- */

/* NAME is all blanks when there is no checkpoint to load. */
void scr_have_restart_(int *flag, char *name, int *ierror, scr_fstrlen name_len)
{
    char got[SCR_MAX_FILENAME] = "";
    *ierror = SCR_Have_restart(flag, got);
    if (*ierror == SCR_SUCCESS && *flag)
        *ierror = to_fortran(got, name, name_len, "SCR_HAVE_RESTART", "NAME");
    else
        memset(name, ' ', name_len);
}

void scr_start_restart_(char *name, int *ierror, scr_fstrlen name_len)
{
    char got[SCR_MAX_FILENAME] = "";
    *ierror = SCR_Start_restart(got);
    if (*ierror == SCR_SUCCESS)
        *ierror = to_fortran(got, name, name_len, "SCR_START_RESTART", "NAME");
    else
        memset(name, ' ', name_len);
}

void scr_complete_restart_(const int *valid, int *ierror)
{
    *ierror = SCR_Complete_restart(*valid);
}

/* --- output ------------------------------------------------------------ */

/* An all-blank NAME asks for a name made from the dataset's id, as NULL
 * does in C. */
void scr_start_output_(const char *name, const int *flags, int *ierror, scr_fstrlen name_len)
{
    char text[SCR_MAX_FILENAME];
    *ierror = from_fortran(name, name_len, text, "SCR_START_OUTPUT", "NAME");
    if (*ierror != SCR_SUCCESS) return;
    *ierror = SCR_Start_output(text[0] != '\0' ? text : NULL, *flags);
}

void scr_complete_output_(const int *valid, int *ierror)
{
    *ierror = SCR_Complete_output(*valid);
}

/* --- managing datasets ------------------------------------------------- */

void scr_current_(const char *name, int *ierror, scr_fstrlen name_len)
{
    char text[SCR_MAX_FILENAME];
    *ierror = from_fortran(name, name_len, text, "SCR_CURRENT", "NAME");
    if (*ierror == SCR_SUCCESS) *ierror = SCR_Current(text);
}

void scr_drop_(const char *name, int *ierror, scr_fstrlen name_len)
{
    char text[SCR_MAX_FILENAME];
    *ierror = from_fortran(name, name_len, text, "SCR_DROP", "NAME");
    if (*ierror == SCR_SUCCESS) *ierror = SCR_Drop(text);
}

void scr_delete_(const char *name, int *ierror, scr_fstrlen name_len)
{
    char text[SCR_MAX_FILENAME];
    *ierror = from_fortran(name, name_len, text, "SCR_DELETE", "NAME");
    if (*ierror == SCR_SUCCESS) *ierror = SCR_Delete(text);
}
