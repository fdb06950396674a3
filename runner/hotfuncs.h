/* hotfuncs.h: the hottest functions of a recording, for the last lines of
 * a terminal `flamepipe live` session (runner/hotfuncs.c). */
#ifndef FP_RUNNER_HOTFUNCS_H
#define FP_RUNNER_HOTFUNCS_H

#include <stddef.h>
#include <stdio.h>

/* Prints the n functions with the most samples of their own (self: the
 * sample's leaf frame) and the n with the most samples under them (total:
 * the function is anywhere on the stack, once per sample however deep it
 * recurses) of the recording at path, idle samples left out, as two
 * small tables on f. Returns the samples counted, or -1 (said on f) if
 * the recording cannot be read. */
long long fp_print_hot_functions(FILE *f, const char *path, size_t n);

#endif
