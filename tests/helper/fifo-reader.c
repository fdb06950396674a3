/* fifo-reader PATH: reads lines from a FIFO opened with
 * fp_fifo_open_reader (own write end kept) and echoes them; writers may
 * open and close the FIFO any number of times. Ends on SIGTERM. */
#include <stdio.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_fifo.h"
#include "fp_io.h"

static void echo_line(struct fp_pump *p, char *line, size_t len)
{
	fp_out_write(&p->out, line, len);
	fp_out_char(&p->out, '\n');
	fp_out_flush(&p->out);
}

static const struct fp_pump_ops echo_ops = { .line = echo_line };

int main(int argc, char **argv)
{
	struct fp_pump p;
	int keep, fd;

	fp_set_prog(argv[0]);
	if (argc != 2)
		fp_die(FP_EXIT_USAGE, "usage: fifo-reader PATH");
	fd = fp_fifo_open_reader(argv[1], &keep);
	if (fd < 0)
		fp_die_sys(FP_EXIT_SYS, "open '%s'", argv[1]);
	fp_pump_init(&p, EV_DEFAULT, fd, 1, &echo_ops, NULL, 0);
	return fp_pump_run(&p);
}
