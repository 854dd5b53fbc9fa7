/* scr31_main.c — one of SCR 3.1's command names (SCR31_NAME, given when it
 * is built: cli/cli.am builds this file once per name). */
#include "scr31_front.h"

int main(int argc, char **argv)
{
    return scr31_main(SCR31_NAME, argc, argv);
}
