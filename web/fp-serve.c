/* fp-serve.c: the flamepipe web server (work in progress: routes follow). */
#include <stdio.h>

#include "fp_error.h"
#include "serve.h"

struct server g_server;

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "fp-serve: not built yet\n");
	return FP_EXIT_SYS;
}
