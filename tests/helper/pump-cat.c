/* pump-cat: a stage that handles no record: every line passes through the
 * fp_pump unchanged. Tests use it to exercise framing and backpressure. */
#include <stdio.h>
#include <stdlib.h>

#include "fp_error.h"
#include "fp_io.h"

static void pass_line(struct fp_pump *p, char *line, size_t len)
{
	fp_out_write(&p->out, line, len);
	fp_out_char(&p->out, '\n');
}

static const struct fp_pump_ops pass_ops = { .line = pass_line };

int main(int argc, char **argv)
{
	struct fp_pump p;

	fp_set_prog(argv[0]);
	fp_pump_init(&p, EV_DEFAULT, 0, 1, &pass_ops, NULL, argc > 1 ? FP_PUMP_GZIP : 0);
	return fp_pump_run(&p);
}
