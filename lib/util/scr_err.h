/* scr_err.h — the status codes every function of libscr-core returns.
 *
 * SCR_SUCCESS (0) means success, as in the public API; any other value is an
 * error and says which kind. The layer that first sees an error logs it once
 * (util_log.h) with the file and the cause; callers only pass the code up. */
#ifndef SCR_ERR_H
#define SCR_ERR_H

#ifndef SCR_SUCCESS
#define SCR_SUCCESS (0)
#endif

enum scr_status {
    SCR_FAILURE = 1,      /* unspecified failure */
    SCR_ERR_IO = 2,       /* a system call failed; errno was logged */
    SCR_ERR_FORMAT = 3,   /* input is damaged or not in a format we understand */
    SCR_ERR_NOMEM = 4,    /* an allocation failed */
    SCR_ERR_ARG = 5,      /* a caller passed an invalid argument */
    SCR_ERR_NOTFOUND = 6, /* the key, file or entry does not exist */
    SCR_ERR_TYPE = 7,     /* a value exists but does not parse as the type asked for */
    SCR_ERR_STATE = 8,    /* the call is not allowed in the current state */
    SCR_ERR_TIMEOUT = 9,  /* an operation did not finish in the time allowed and was abandoned */
};

/* Short, static description of a status code ("I/O error", ...). */
const char *scr_strstatus(int status);

#endif
